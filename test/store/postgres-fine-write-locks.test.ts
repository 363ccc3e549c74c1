// On PostgreSQL a write locks what it changes, not its zone: a ruleset, a phase entry point, the
// zone's previous-WAF state, a log push job. Writes to other things of the same zone run while one
// is held open; writes to the held thing queue behind it and are based on its commit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/open';
import { EntryPointExistsError, MigrationStateConflictError, type RuleInput, type RulesetScope, type Store } from '../../src/store';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { CUSTOM_FIELDS, FIREWALL_MANAGED, ZONE_IDS } from './contract/fixtures';
import { holdWrite, stillWaiting, within } from './helpers/held-write';

const CUSTOM = 'http_request_firewall_custom';
/** A phase no fixture zone has an entry point for. */
const LATE_TRANSFORM = 'http_request_late_transform';
/** Long enough for a queued write to show it is waiting, short against the lock timeout. */
const WAITING_MS = 1_000;
/** Generous on a loaded machine; far below the lock timeout a queued write would wait for. */
const FREE_MS = 10_000;
const JOB = { dataset: 'http_requests', destination_conf: 's3://bucket/logs?region=us-east-1' };

let cluster: PostgresCluster;
let store: Store;

beforeAll(async () => {
  cluster = await startPostgres();
  store = await openPostgresStore({ connectionString: await cluster.createDatabase('fine_locks'), lockTimeoutMs: 30_000 });
});
afterAll(async () => {
  await store?.close();
  await cluster?.stop();
});

const rules = (...paths: string[]): RuleInput[] =>
  paths.map((path) => ({ action: 'block', expression: `http.request.uri.path eq "${path}"`, description: path }));

/** The versions a ruleset keeps from `start` on, in order. */
async function versionsFrom(scope: RulesetScope, id: string, start: number): Promise<number[]> {
  const versions = await store.rulesets.listVersions(scope, id);
  return versions!.map((version) => Number(version.version)).filter((n) => n >= start).sort((x, y) => x - y);
}

describe('PostgreSQL write locks on what a write changes', () => {
  it('writes another ruleset of a zone while one of its rulesets is held, and queues writes to the held one, one version each', async () => {
    const scope = { zone_id: ZONE_IDS.business };
    const { ruleset: held } = await store.rulesets.putEntryPoint(scope, CUSTOM, { rules: rules('/a', '/b') });
    const { ruleset: free } = await store.rulesets.putEntryPoint(scope, CUSTOM_FIELDS, { rules: rules('/c') });
    const [first, second] = held.rules;

    const holding = await holdWrite(store, (tx) => tx.rulesets.updateRule(scope, held.id, first!.id, { description: 'held' }));
    let queued: ReturnType<typeof store.rulesets.updateRule> | undefined;
    try {
      const added = await within(FREE_MS, store.rulesets.addRule(scope, free.id, rules('/d')[0]!), 'the write to the other ruleset');
      expect(added.version).toBe(String(Number(free.version) + 1));
      expect(added.rules.map((rule) => rule.description)).toEqual(['/c', '/d']);

      queued = store.rulesets.updateRule(scope, held.id, second!.id, { description: 'queued' });
      expect(await stillWaiting(queued, WAITING_MS)).toBe(true);
    } finally {
      await holding.release();
    }
    const start = Number(held.version);
    expect(holding.value.version).toBe(String(start + 1));
    // Based on the held write's commit: its description kept, and one version of its own.
    const after = await within(FREE_MS, queued!, 'the queued write');
    expect(after.version).toBe(String(start + 2));
    expect(after.rules.map((rule) => rule.description)).toEqual(['held', 'queued']);
    expect(await versionsFrom(scope, held.id, start)).toEqual([start, start + 1, start + 2]);
  });

  it('creates an entry point once when creators race: a queued PUT updates it, a queued POST is refused, another phase waits on neither', async () => {
    const scope = { zone_id: ZONE_IDS.enterprise };
    const holding = await holdWrite(store, (tx) =>
      tx.rulesets.create(scope, { name: 'first', description: '', kind: 'zone', phase: LATE_TRANSFORM, rules: rules('/first') }),
    );
    let put: ReturnType<typeof store.rulesets.putEntryPoint> | undefined;
    let post: ReturnType<typeof store.rulesets.create> | undefined;
    try {
      const other = await within(FREE_MS, store.rulesets.putEntryPoint(scope, CUSTOM, { rules: rules('/other') }), 'the other phase\'s PUT');
      expect(other.ruleset.rules.map((rule) => rule.description)).toEqual(['/other']);

      put = store.rulesets.putEntryPoint(scope, LATE_TRANSFORM, { rules: rules('/second') });
      post = store.rulesets.create(scope, { name: 'third', description: '', kind: 'zone', phase: LATE_TRANSFORM, rules: rules('/third') });
      post.catch(() => undefined);
      expect(await stillWaiting(put, WAITING_MS)).toBe(true);
      expect(await stillWaiting(post, 0)).toBe(true);
    } finally {
      await holding.release();
    }
    const { ruleset, created } = await within(FREE_MS, put!, 'the queued PUT');
    expect(created).toBe(false);
    expect(ruleset.id).toBe(holding.value.id);
    expect(ruleset.version).toBe('2');
    expect(ruleset.rules.map((rule) => rule.description)).toEqual(['/second']);
    await expect(within(FREE_MS, post!, 'the queued POST')).rejects.toBeInstanceOf(EntryPointExistsError);
  });

  it('creates the entry point anew when the one a PUT found is deleted while the PUT waits for it', async () => {
    const scope = { zone_id: ZONE_IDS.pro };
    const { ruleset: doomed } = await store.rulesets.putEntryPoint(scope, LATE_TRANSFORM, { rules: rules('/doomed') });
    const holding = await holdWrite(store, (tx) => tx.rulesets.delete(scope, doomed.id));
    let put: ReturnType<typeof store.rulesets.putEntryPoint> | undefined;
    try {
      put = store.rulesets.putEntryPoint(scope, LATE_TRANSFORM, { rules: rules('/reborn') });
      expect(await stillWaiting(put, WAITING_MS)).toBe(true);
    } finally {
      await holding.release();
    }
    const { ruleset, created } = await within(FREE_MS, put!, 'the queued PUT');
    expect(created).toBe(true);
    expect(ruleset.id).not.toBe(doomed.id);
    expect(ruleset.version).toBe('1');
    expect((await store.rulesets.getEntryPoint(scope, LATE_TRANSFORM))?.id).toBe(ruleset.id);
  });

  it('writes one log push job while another job of the same zone is held, and queues writes to the held job', async () => {
    const zone = ZONE_IDS.pro;
    const heldJob = await store.logpushJobs.create(zone, JOB);
    const freeJob = await store.logpushJobs.create(zone, JOB);
    const holding = await holdWrite(store, (tx) => tx.logpushJobs.update(zone, heldJob.id, { name: 'held' }));
    let queued: ReturnType<typeof store.logpushJobs.update> | undefined;
    try {
      const updated = await within(FREE_MS, store.logpushJobs.update(zone, freeJob.id, { name: 'free' }), 'the other job\'s update');
      expect(updated.name).toBe('free');
      const createdJob = await within(FREE_MS, store.logpushJobs.create(zone, JOB), 'a job creation in the zone');
      expect(createdJob.id).toBeGreaterThan(freeJob.id);
      await within(FREE_MS, store.logpushJobs.delete(zone, createdJob.id), 'the new job\'s deletion');

      queued = store.logpushJobs.update(zone, heldJob.id, { enabled: true });
      expect(await stillWaiting(queued, WAITING_MS)).toBe(true);
    } finally {
      await holding.release();
    }
    // Based on the held update's commit: its name kept.
    const after = await within(FREE_MS, queued!, 'the queued update');
    expect(after).toMatchObject({ id: heldJob.id, name: 'held', enabled: true });
    expect(await store.logpushJobs.get(zone, heldJob.id)).toMatchObject({ name: 'held', enabled: true });
  });

  it('holds a zone\'s previous-WAF state and managed entry point through a migration, and nothing else of the zone', async () => {
    const zone = ZONE_IDS.manyFirewallRules;
    const scope = { zone_id: zone };
    const before = (await store.waf.getState(zone))!.migration_state;
    const step = { from: [before], to: 'validation', old_managed_rules_enabled: true, new_managed_rules_enabled: true } as const;
    // The migration's transaction: the state read, the managed entry point written, the state moved.
    const migrating = await holdWrite(store, async (tx) => {
      await tx.waf.getState(zone);
      const { ruleset } = await tx.rulesets.putEntryPoint(scope, FIREWALL_MANAGED, { rules: rules('/migrated') });
      await tx.waf.transition(zone, step);
      return ruleset;
    });
    let raced: ReturnType<typeof store.waf.transition> | undefined;
    let entryPoint: ReturnType<typeof store.rulesets.putEntryPoint> | undefined;
    try {
      const custom = await within(FREE_MS, store.rulesets.putEntryPoint(scope, CUSTOM, { rules: rules('/custom') }), 'the custom entry point\'s PUT');
      expect(custom.ruleset.rules.map((rule) => rule.description)).toEqual(['/custom']);

      raced = store.waf.transition(zone, step);
      raced.catch(() => undefined);
      entryPoint = store.rulesets.putEntryPoint(scope, FIREWALL_MANAGED, { rules: rules('/after') });
      expect(await stillWaiting(raced, WAITING_MS)).toBe(true);
      expect(await stillWaiting(entryPoint, 0)).toBe(true);
    } finally {
      await migrating.release();
    }
    // The same migration raced from elsewhere finds the state already moved: it happens once.
    await expect(within(FREE_MS, raced!, 'the raced migration step')).rejects.toBeInstanceOf(MigrationStateConflictError);
    const { ruleset, created } = await within(FREE_MS, entryPoint!, 'the queued entry point PUT');
    expect(created).toBe(false);
    expect(ruleset.id).toBe(migrating.value.id);
    expect(ruleset.version).toBe(String(Number(migrating.value.version) + 1));
    expect((await store.waf.getState(zone))?.migration_state).toBe('validation');
  });

  it('gets two transactions that write two rulesets of one zone in opposite orders past their deadlock, one version each', async () => {
    const scope = { zone_id: ZONE_IDS.uriOverrides };
    const one = (await store.rulesets.putEntryPoint(scope, CUSTOM, { rules: rules('/one') })).ruleset;
    const two = (await store.rulesets.putEntryPoint(scope, CUSTOM_FIELDS, { rules: rules('/two') })).ruleset;
    const signals = [one, two].map(() => {
      let fire!: () => void;
      const promise = new Promise<void>((resolve) => (fire = resolve));
      return { promise, fire };
    });
    const crossed = (from: typeof one, to: typeof one, mine: (typeof signals)[number], theirs: (typeof signals)[number]) =>
      store.transaction(async (tx) => {
        await tx.rulesets.updateRule(scope, from.id, from.rules[0]!.id, { description: `from ${from.id}` });
        mine.fire();
        // Only the first attempt meets the other halfway; a rerun finds the signal already given.
        await theirs.promise;
        await tx.rulesets.updateRule(scope, to.id, to.rules[0]!.id, { enabled: false });
      });
    await within(FREE_MS * 3, Promise.all([crossed(one, two, signals[0]!, signals[1]!), crossed(two, one, signals[1]!, signals[0]!)]), 'the crossed writes');
    for (const ruleset of [one, two]) {
      const start = Number(ruleset.version);
      const now = await store.rulesets.get(scope, ruleset.id);
      expect(now?.version).toBe(String(start + 2));
      expect(now?.rules.map((rule) => [rule.description, rule.enabled])).toEqual([[`from ${ruleset.id}`, false]]);
      expect(await versionsFrom(scope, ruleset.id, start)).toEqual([start, start + 1, start + 2]);
    }
  });
});
