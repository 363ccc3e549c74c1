// The server bench's ceiling of a rule PATCH (scripts/bench/support/durable-write-floor.ts) is only
// a ceiling if it makes the same durable write as the store: the rule changed, the ruleset one
// version further on, and that version's snapshot kept, as the store reads them back afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { durableWriteFloorApp } from '../../scripts/bench/support/durable-write-floor';
import { basePath } from '../../src/server';
import { openSqliteStore, type Ruleset } from '../../src/store';

const PRO_ZONE = '9d6991f5ca85bf43524971c922c4bcfc';
const MANAGED_PHASE = 'http_request_firewall_managed';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function floorServer() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'write-floor-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const seeding = await openSqliteStore({ dataDir });
  const entryPoint = (await seeding.rulesets.getEntryPoint({ zone_id: PRO_ZONE }, MANAGED_PHASE))!;
  await seeding.close();
  const floor = durableWriteFloorApp(dataDir, entryPoint);
  cleanups.push(() => floor.close());
  const server = floor.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${basePath}`;
  const patch = (rulesetId: string, ruleId: string, enabled: boolean) =>
    fetch(`${base}/zones/${PRO_ZONE}/rulesets/${rulesetId}/rules/${ruleId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled }),
    });
  return { dataDir, entryPoint, patch };
}

describe('the durable write of the server bench ceiling', () => {
  it('changes the rule, bumps the version once per PATCH and keeps each version, as the store reads them', async () => {
    const { dataDir, entryPoint, patch } = await floorServer();
    const rule = entryPoint.rules.find((r) => r.action === 'execute')!;
    expect(rule.enabled).toBe(true);

    const first = await patch(entryPoint.id, rule.id, false);
    expect(first.status).toBe(200);
    const answered = ((await first.json()) as { result: Ruleset }).result;
    expect(answered.version).toBe(String(Number(entryPoint.version) + 1));
    expect(answered.rules.find((r) => r.id === rule.id)?.enabled).toBe(false);
    expect((await patch(entryPoint.id, rule.id, true)).status).toBe(200);

    const store = await openSqliteStore({ dataDir });
    cleanups.push(() => store.close());
    const now = (await store.rulesets.get({ zone_id: PRO_ZONE }, entryPoint.id))!;
    expect(now.version).toBe(String(Number(entryPoint.version) + 2));
    expect(now.rules.find((r) => r.id === rule.id)?.enabled).toBe(true);
    const kept = (await store.rulesets.getVersion({ zone_id: PRO_ZONE }, entryPoint.id, answered.version))!;
    expect(kept.rules.find((r) => r.id === rule.id)?.enabled).toBe(false);
  });

  it('answers 404 and writes nothing for a rule that does not exist', async () => {
    const { dataDir, entryPoint, patch } = await floorServer();
    expect((await patch(entryPoint.id, 'f'.repeat(32), false)).status).toBe(404);
    const store = await openSqliteStore({ dataDir });
    cleanups.push(() => store.close());
    expect((await store.rulesets.get({ zone_id: PRO_ZONE }, entryPoint.id))!.version).toBe(entryPoint.version);
  });
});
