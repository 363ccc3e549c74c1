// Writes lock the ruleset they change, not its zone or the database: while one ruleset's write
// transaction is held open, a write to another zone, or to another ruleset of the same zone, through
// another instance completes, and a write to the held ruleset waits for it, then makes exactly one
// new version of its own.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client';
import { openPostgresStore } from '../../src/store/postgres/open';
import type { Store } from '../../src/store';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { FIREWALL_MANAGED, MAIN_ACCOUNT_ID, OWASP_RULESET_ID, ZONE_IDS } from '../store/contract/fixtures';
import { within } from '../store/helpers/held-write';
import { startInstance, type Instance } from './instances';

const CUSTOM = 'http_request_firewall_custom';
/** Far beyond the test's own waits: a write that waits on a lock fails the test by its answer, not a timeout. */
const PATIENT = { DATABASE_LOCK_TIMEOUT_MS: '120000', DATABASE_CONNECT_TIMEOUT_MS: '120000' };
/** How long the write to the held zone must stay unanswered to count as waiting. */
const WAITING_MS = 1_500;
/** Generous on a loaded machine; a write queued behind the held transaction would never answer in it. */
const FREE_WRITE_MS = 20_000;

let cluster: PostgresCluster;
let holder: Store;
let a: Instance;
let b: Instance;

beforeAll(async () => {
  cluster = await startPostgres();
  const databaseUrl = await cluster.createDatabase('zone_locks');
  a = await startInstance({ DATABASE_URL: databaseUrl, ...PATIENT });
  b = await startInstance({ DATABASE_URL: databaseUrl, ...PATIENT });
  // A third process's store, whose transaction the test can keep open at will.
  holder = await openPostgresStore({ connectionString: databaseUrl, seed: false });
});
afterAll(async () => {
  await holder?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  await cluster?.stop();
});

async function customEntryPoint(through: Instance, zone_id: string) {
  const rules = ['/first', '/second'].map((path) => ({ action: 'block' as const, expression: `http.request.uri.path eq "${path}"`, description: path }));
  return unwrap(through.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id, phase: CUSTOM } }, body: { rules } }));
}

async function patchDescription(through: Instance, zone_id: string, ruleset_id: string, rule_id: string, description: string) {
  const response = await through.fetch(`/zones/${zone_id}/rulesets/${ruleset_id}/rules/${rule_id}`, {
    method: 'PATCH',
    body: JSON.stringify({ description }),
  });
  return { status: response.status, body: (await response.json()) as { result: { version: string; rules: { description: string }[] } } };
}

type Ruleset = Awaited<ReturnType<typeof customEntryPoint>>;

/**
 * Holds a write to `held` open in the third process, then writes `free` through instance b (it
 * must not wait) and `held` through instance a (it must wait, then build on the held write).
 */
async function holdOneWriteAnother(heldZone: string, held: Ruleset, freeZone: string, free: Ruleset) {
  const [first, second] = held.rules!;

  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const isHolding = new Promise<void>((resolve) => (holding = resolve));
  const heldWrite = holder.transaction(async (tx) => {
    // As a zone's execute rule check reads it: a platform-managed ruleset is shared, never locked.
    await tx.rulesets.get({ account_id: MAIN_ACCOUNT_ID }, OWASP_RULESET_ID);
    const ruleset = await tx.rulesets.updateRule({ zone_id: heldZone }, held.id, first!.id!, { description: 'held' });
    holding();
    await released;
    return ruleset;
  });
  await isHolding;

  let queued: ReturnType<typeof patchDescription> | undefined;
  try {
    const freeAnswer = await within(FREE_WRITE_MS, patchDescription(b, freeZone, free.id, free.rules![0]!.id!, 'free'), 'the other ruleset\'s write');
    expect(freeAnswer.status).toBe(200);
    expect(freeAnswer.body.result.version).toBe(String(Number(free.version) + 1));

    queued = patchDescription(a, heldZone, held.id, second!.id!, 'queued');
    const early = await Promise.race([queued.then(() => 'answered'), sleep(WAITING_MS).then(() => 'waiting')]);
    expect(early).toBe('waiting');
  } finally {
    release();
  }

  expect((await heldWrite).version).toBe(String(Number(held.version) + 1));
  const queuedAnswer = await within(FREE_WRITE_MS, queued!, 'the queued write');
  expect(queuedAnswer.status).toBe(200);
  // Based on the held write's commit, not on what it would have read before: one version each.
  expect(queuedAnswer.body.result.version).toBe(String(Number(held.version) + 2));
  expect(queuedAnswer.body.result.rules.map((rule) => rule.description)).toEqual(['held', 'queued']);
  const versions = await unwrap(
    a.api.GET('/zones/{zone_id}/rulesets/{ruleset_id}/versions', { params: { path: { zone_id: heldZone, ruleset_id: held.id } } }),
  );
  const numbers = versions.map((version) => Number(version.version)).sort((x, y) => x - y);
  const start = Number(held.version);
  expect(numbers.filter((n) => n >= start)).toEqual([start, start + 1, start + 2]);
}

describe('write locks per ruleset on PostgreSQL', () => {
  it('lets another zone write while one zone\'s ruleset is held, and queues the held ruleset\'s writes, one version each', async () => {
    const held = await customEntryPoint(a, ZONE_IDS.business);
    const free = await customEntryPoint(b, ZONE_IDS.enterprise);
    await holdOneWriteAnother(ZONE_IDS.business, held, ZONE_IDS.enterprise, free);
  });

  it('lets another ruleset of the same zone write while one is held, the OWASP ruleset both read shared, and queues the held one\'s writes', async () => {
    const zone_id = ZONE_IDS.pro;
    const held = await customEntryPoint(a, zone_id);
    // The zone's firewall-managed entry point, whose rules execute the OWASP and platform rulesets.
    const free = await unwrap(b.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id, phase: FIREWALL_MANAGED } } }));
    await holdOneWriteAnother(zone_id, held, zone_id, free);
  });
});
