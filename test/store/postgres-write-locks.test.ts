// Write transactions on PostgreSQL lock what they change (here each zone's entry point): writes to
// different zones run side by side, and two transactions that each reach two zones in opposite
// orders deadlock once, the engine ends one of them, and it runs again: both commit, one version each.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/open';
import type { Repositories, Store } from '../../src/store';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { ZONE_IDS } from './contract/fixtures';

const CUSTOM = 'http_request_firewall_custom';
/** Long enough for a queued write to show it is waiting, short against the lock timeout. */
const WAITING_MS = 1_000;

let cluster: PostgresCluster;
let store: Store;

beforeAll(async () => {
  cluster = await startPostgres();
  store = await openPostgresStore({ connectionString: await cluster.createDatabase('write_locks'), lockTimeoutMs: 30_000 });
});
afterAll(async () => {
  await store?.close();
  await cluster?.stop();
});

const rules = (path: string) => [{ action: 'block', expression: `http.request.uri.path eq "${path}"` }];

function putCustom(tx: Repositories, zone_id: string, path: string) {
  return tx.rulesets.putEntryPoint({ zone_id }, CUSTOM, { rules: rules(path) });
}

/** A promise and the function that settles it. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

describe('PostgreSQL write locks', () => {
  it('runs a write to another zone while a zone is held, and queues a write to the held zone', async () => {
    const held = signal();
    const release = signal();
    const holding = store.transaction(async (tx) => {
      await putCustom(tx, ZONE_IDS.pro, '/held');
      held.fire();
      await release.promise;
    });
    await held.promise;
    try {
      const other = await store.rulesets.putEntryPoint({ zone_id: ZONE_IDS.business }, CUSTOM, { rules: rules('/other') });
      expect(other.ruleset.rules.map((rule) => rule.expression)).toEqual(['http.request.uri.path eq "/other"']);
      let queuedDone = false;
      const queued = store.rulesets.putEntryPoint({ zone_id: ZONE_IDS.pro }, CUSTOM, { rules: rules('/queued') }).finally(() => (queuedDone = true));
      await sleep(WAITING_MS);
      expect(queuedDone).toBe(false);
      release.fire();
      await holding;
      // Created by the held transaction, then updated by the queued one: neither created it twice.
      const { ruleset, created } = await queued;
      expect(created).toBe(false);
      expect(ruleset.version).toBe('2');
    } finally {
      release.fire();
    }
  });

  it('creates a log push job in one zone while another zone\'s job creation is held open, each with a number of its own', async () => {
    const job = { dataset: 'http_requests', destination_conf: 's3://bucket/logs?region=us-east-1' };
    const held = signal();
    const release = signal();
    let heldId = 0;
    const holding = store.transaction(async (tx) => {
      heldId = (await tx.logpushJobs.create(ZONE_IDS.pro, job)).id;
      held.fire();
      await release.promise;
      throw new Error('rolled back on purpose');
    });
    await held.promise;
    try {
      const other = await store.logpushJobs.create(ZONE_IDS.business, job);
      expect(other.id).toBe(heldId + 1);
    } finally {
      release.fire();
    }
    await expect(holding).rejects.toThrow('rolled back on purpose');
    // The number the rolled-back creation took is skipped, never handed out again.
    expect((await store.logpushJobs.create(ZONE_IDS.pro, job)).id).toBe(heldId + 2);
    expect(await store.logpushJobs.get(ZONE_IDS.pro, heldId)).toBeNull();
  });

  it('gets two transactions that lock two zones in opposite orders past their deadlock, one version each', async () => {
    const [first, second] = [ZONE_IDS.enterprise, ZONE_IDS.uriOverrides];
    // Each zone's entry point, or 0 where the fixtures have none yet.
    const before = await Promise.all(
      [first, second].map(async (zone_id) => Number((await store.rulesets.getEntryPoint({ zone_id }, CUSTOM))?.version ?? 0)),
    );
    const oneHolds = signal();
    const otherHolds = signal();
    const crossed = (from: string, to: string, mine: ReturnType<typeof signal>, theirs: ReturnType<typeof signal>) =>
      store.transaction(async (tx) => {
        await putCustom(tx, from, `/from-${from}`);
        mine.fire();
        // Only the first attempt meets the other halfway; a rerun finds the signal already given.
        await theirs.promise;
        await putCustom(tx, to, `/to-${to}`);
      });
    await Promise.all([crossed(first, second, oneHolds, otherHolds), crossed(second, first, otherHolds, oneHolds)]);
    for (const [i, zone_id] of [first, second].entries()) {
      const entryPoint = await store.rulesets.getEntryPoint({ zone_id }, CUSTOM);
      expect(entryPoint?.version).toBe(String(before[i]! + 2));
      const versions = await store.rulesets.listVersions({ zone_id }, entryPoint!.id);
      const numbers = versions!.map((version) => Number(version.version)).sort((x, y) => x - y);
      expect(numbers.filter((n) => n > before[i]!)).toEqual([before[i]! + 1, before[i]! + 2]);
    }
  });
});
