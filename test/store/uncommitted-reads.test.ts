// Reads issued while a write transaction is in progress answer what is committed: never what the
// transaction changed and may still roll back, even for a ruleset version the cache holds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type Store } from '../../src/store';
import { ZONE_IDS } from './contract/fixtures';

/** A promise and the function that settles it, to hold a transaction open at a chosen point. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('the store reads around a write transaction in progress', () => {
  const opened: Store[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('never answers what an uncommitted transaction changed, even for a cached version', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'statements-now-'));
    dirs.push(dataDir);
    const store = await openSqliteStore({ dataDir });
    opened.push(store);
    const scope = { zone_id: ZONE_IDS.pro };
    const created = await store.rulesets.create(scope, { name: 'custom', kind: 'zone', phase: 'http_request_firewall_custom', rules: [] });
    // Read once: its version is now in the snapshot cache, the answer of the fast path.
    expect((await store.rulesets.getEntryPoint(scope, 'http_request_firewall_custom'))?.id).toBe(created.id);

    const held = gate();
    const deleted = gate();
    const rolledBack = store
      .transaction(async (tx) => {
        await tx.rulesets.delete(scope, created.id);
        deleted.open();
        await held.opened;
        throw new Error('roll back');
      })
      .catch((error: Error) => error.message);
    await deleted.opened;
    // The delete is not committed: reads issued now must not report the ruleset gone.
    const byId = store.rulesets.get(scope, created.id);
    const entryPoint = store.rulesets.getEntryPoint(scope, 'http_request_firewall_custom');
    held.open();
    expect(await rolledBack).toBe('roll back');
    expect((await byId)?.id).toBe(created.id);
    expect((await entryPoint)?.id).toBe(created.id);
  });
});
