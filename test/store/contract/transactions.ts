import { describe, expect, it } from 'vitest';
import { SchemaTooNewError, type RuleInput } from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import { runWriter } from '../helpers/processes';
import { FIREWALL_MANAGED, fixtureId, MAIN_ACCOUNT_ID, OWASP_RULESET_ID, ZONE_IDS } from './fixtures';

const PRO = { zone_id: ZONE_IDS.pro };
const PRO_ENTRY_POINT = fixtureId('pro-entry-point');
const rule = (description: string): RuleInput => ({ action: 'log', expression: 'true', description });

export function transactionsContract(harness: () => StoreHarness): void {
  describe('transactions', () => {
    it('commits all writes of a transaction together, with one version per ruleset', async () => {
      const store = await harness().fresh();
      const result = await store.transaction(async (tx) => {
        const ruleset = await tx.rulesets.update(PRO, PRO_ENTRY_POINT, { rules: [rule('a')] });
        await tx.rulesets.updateRule(PRO, PRO_ENTRY_POINT, ruleset.rules[0]!.id, { description: 'b' });
        await tx.waf.transition(ZONE_IDS.business, {
          from: ['start'],
          to: 'finished',
          old_managed_rules_enabled: false,
          new_managed_rules_enabled: true,
        });
        return tx.rulesets.get(PRO, PRO_ENTRY_POINT);
      });
      expect(result?.version).toBe('3');
      expect(result?.rules.map((r) => r.description)).toEqual(['b']);
      expect(await store.rulesets.get(PRO, PRO_ENTRY_POINT)).toEqual(result);
      expect(await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, '3')).toEqual(result);
      expect(await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, '4')).toBeNull();
      expect((await store.waf.getState(ZONE_IDS.business))?.migration_state).toBe('finished');
    });

    it('records each version as committed even when a write changes a ruleset another write read back', async () => {
      const store = await harness().fresh();
      const [first, last] = await store.transaction(async (tx) => {
        const first = await tx.rulesets.update(PRO, PRO_ENTRY_POINT, { rules: [rule('a'), rule('b')] });
        await tx.rulesets.updateRule(PRO, PRO_ENTRY_POINT, first.rules[1]!.id, { description: 'c' });
        const last = await tx.rulesets.update(PRO, PRO_ENTRY_POINT, { rules: [first.rules[0]!, rule('d')] });
        return [first, last];
      });
      // What a write hands back is frozen: the caller cannot change what the version history keeps.
      expect(() => {
        (first.rules[0] as { description: string }).description = 'changed';
      }).toThrow(TypeError);
      expect(first.rules.map((r) => r.description)).toEqual(['a', 'b']);
      expect(last.rules.map((r) => r.description)).toEqual(['a', 'd']);
      expect(await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, last.version)).toEqual(last);
      expect(await store.rulesets.get(PRO, PRO_ENTRY_POINT)).toEqual(last);
      // The next write starts from the committed version, read from the database or the cache alike.
      const next = await store.rulesets.updateRule(PRO, PRO_ENTRY_POINT, last.rules[1]!.id, { description: 'e' });
      expect(next.version).toBe(String(Number(last.version) + 1));
      expect(next.rules.map((r) => r.description)).toEqual(['a', 'e']);
      expect(await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, last.version)).toEqual(last);
    });

    it('records what the database holds when a write failed half-way and the caller went on', async () => {
      const store = await harness().fresh();
      const committed = await store.transaction(async (tx) => {
        const read = await tx.rulesets.update(PRO, PRO_ENTRY_POINT, { rules: [rule('a')] });
        const twice = { ...read.rules[0]! };
        // Refused after the old rules were removed: the transaction goes on without them.
        await expect(tx.rulesets.update(PRO, PRO_ENTRY_POINT, { rules: [twice, twice] })).rejects.toThrow('more than once');
        return tx.rulesets.get(PRO, PRO_ENTRY_POINT);
      });
      expect(committed?.rules).toEqual([]);
      expect(await store.rulesets.get(PRO, PRO_ENTRY_POINT)).toEqual(committed);
      expect(await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, committed!.version)).toEqual(committed);
    });

    it('leaves nothing behind when the transaction fails', async () => {
      const store = await harness().fresh();
      const before = await store.rulesets.get(PRO, PRO_ENTRY_POINT);
      const failure = new Error('handler failed after writing');
      const outcome = store.transaction(async (tx) => {
        await tx.rulesets.update(PRO, PRO_ENTRY_POINT, { rules: [rule('lost')] });
        await tx.rulesets.create({ zone_id: ZONE_IDS.business }, { name: 'lost', kind: 'zone', phase: 'http_log_custom_fields' });
        await tx.logpushJobs.create(ZONE_IDS.pro, { dataset: 'http_requests', destination_conf: 's3://lost?region=x' });
        await tx.invitations.respond(fixtureId('invitation:jane-pending'), 'accepted');
        throw failure;
      });
      await expect(outcome).rejects.toBe(failure);
      expect(await store.rulesets.get(PRO, PRO_ENTRY_POINT)).toEqual(before);
      expect(await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, '3')).toBeNull();
      expect((await store.rulesets.list({ zone_id: ZONE_IDS.business })).items).toEqual([]);
      expect((await store.logpushJobs.list(ZONE_IDS.pro)).map((job) => job.id)).toEqual([1]);
      expect((await store.invitations.get(fixtureId('invitation:jane-pending')))?.status).toBe('pending');
      // The failed creation's id was never seen; the next job's id is above every id handed out
      // (3 where the counter rolled back with the transaction, 4 where a sequence skips it).
      const next = (await store.logpushJobs.create(ZONE_IDS.pro, { dataset: 'x', destination_conf: 'y' })).id;
      expect([3, 4]).toContain(next);
    });

    it('refuses use of the store itself inside its own transaction instead of hanging', async () => {
      const store = await harness().fresh();
      const uses: (() => Promise<unknown>)[] = [
        () => store.zones.get(ZONE_IDS.pro),
        () => store.accounts.get(MAIN_ACCOUNT_ID),
        () => store.rulesets.get({ account_id: MAIN_ACCOUNT_ID }, OWASP_RULESET_ID),
        () => store.rulesets.getEntryPoint({ zone_id: ZONE_IDS.pro }, FIREWALL_MANAGED),
      ];
      for (const use of uses) {
        // Refused as a rejected promise, like any other store failure, not thrown on the spot.
        await expect(
          store.transaction(() => {
            try {
              return use();
            } catch (thrown) {
              return Promise.resolve(`thrown on the spot: ${String(thrown)}`);
            }
          }),
        ).rejects.toThrow('store used inside its own transaction: use the tx repositories handed to the callback');
      }
    });

    it('runs transactions of one store one after another', async () => {
      const store = await harness().fresh();
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.transaction(async (tx) => {
            const current = await tx.rulesets.get(PRO, PRO_ENTRY_POINT);
            const kept = current!.rules.map(({ id, action, expression, description }) => ({ id, action, expression, description }));
            await tx.rulesets.update(PRO, PRO_ENTRY_POINT, { rules: [...kept, rule(`parallel-${i}`)] });
          }),
        ),
      );
      const final = await store.rulesets.get(PRO, PRO_ENTRY_POINT);
      expect(final?.version).toBe('22');
      expect(final?.rules).toHaveLength(22);
    });
  });

  describe('persistence', () => {
    it('keeps its state across a restart', async () => {
      const store = await harness().fresh();
      const written = await store.rulesets.update(PRO, PRO_ENTRY_POINT, { rules: [rule('kept')] });
      const job = await store.logpushJobs.create(ZONE_IDS.pro, { dataset: 'http_requests', destination_conf: 's3://a?region=b' });
      await store.close();
      const reopened = await harness().reopen();
      expect(await reopened.rulesets.get(PRO, PRO_ENTRY_POINT)).toEqual(written);
      expect(await reopened.logpushJobs.get(ZONE_IDS.pro, job.id)).toEqual(job);
      expect((await reopened.logpushJobs.create(ZONE_IDS.pro, { dataset: 'x', destination_conf: 'y' })).id).toBe(job.id + 1);
    });

    it('refuses a database whose schema is newer than this code', async () => {
      const store = await harness().fresh();
      await store.close();
      await harness().recordUnknownMigration('9999_from_the_future');
      const error = await harness().reopen().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaTooNewError);
      expect((error as SchemaTooNewError).unknown_migrations).toEqual(['9999_from_the_future']);
      expect((error as Error).message).toMatch(/has schema migrations this version does not know \(9999_from_the_future\)/);
    });

    it('answers ping while open', async () => {
      const store = await harness().fresh({ seed: false });
      await expect(store.ping()).resolves.toBeUndefined();
      await store.close();
      await store.close();
    });
  });

  describe('several processes on one database', () => {
    it('loses no update when two processes read, modify and write the same ruleset', async () => {
      const store = await harness().fresh();
      const connection = harness().connection();
      const perWriter = 25;
      const results = await Promise.all([
        runWriter(connection, 'append', ZONE_IDS.pro, PRO_ENTRY_POINT, 'a', String(perWriter)),
        runWriter(connection, 'append', ZONE_IDS.pro, PRO_ENTRY_POINT, 'b', String(perWriter)),
      ]);
      for (const result of results) {
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
      }
      const final = await store.rulesets.get(PRO, PRO_ENTRY_POINT);
      expect(final?.version).toBe(String(2 + 2 * perWriter));
      const added = final!.rules.map((r) => r.description).filter((d) => /^[ab]-\d+$/.test(d));
      expect(added.sort()).toEqual(
        ['a', 'b'].flatMap((w) => Array.from({ length: perWriter }, (_, i) => `${w}-${i}`)).sort(),
      );
      for (let version = 3; version <= 2 + 2 * perWriter; version += 1) {
        expect((await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, String(version)))?.rules).toHaveLength(2 + version - 2);
      }
    });

    it('bumps the version exactly once per rule patch from either process', async () => {
      const store = await harness().fresh();
      const connection = harness().connection();
      const ruleId = (await store.rulesets.get(PRO, PRO_ENTRY_POINT))!.rules[0]!.id;
      await Promise.all([
        runWriter(connection, 'patch', ZONE_IDS.pro, PRO_ENTRY_POINT, ruleId, '30'),
        runWriter(connection, 'patch', ZONE_IDS.pro, PRO_ENTRY_POINT, ruleId, '30'),
        store.rulesets.updateRule(PRO, PRO_ENTRY_POINT, ruleId, { description: 'from the parent' }),
      ]);
      const final = await store.rulesets.get(PRO, PRO_ENTRY_POINT);
      expect(final?.version).toBe('63');
      expect(final?.rules[0]?.description).toBe('from the parent');
    });

    it('leaves no half change when a process dies inside a transaction', async () => {
      const store = await harness().fresh();
      const before = await store.rulesets.get(PRO, PRO_ENTRY_POINT);
      await store.close();
      const result = await runWriter(harness().connection(), 'die-mid-transaction', ZONE_IDS.pro, PRO_ENTRY_POINT);
      expect(result.signal).toBe('SIGKILL');
      const reopened = await harness().reopen();
      expect(await reopened.rulesets.get(PRO, PRO_ENTRY_POINT)).toEqual(before);
      expect((await reopened.logpushJobs.list(ZONE_IDS.pro)).map((job) => job.id)).toEqual([1]);
      expect((await reopened.rulesets.update(PRO, PRO_ENTRY_POINT, { rules: [] })).version).toBe('3');
    });

    it('keeps a write acknowledged just before the process was killed', async () => {
      const store = await harness().fresh();
      await store.close();
      const result = await runWriter(harness().connection(), 'die-after-commit', ZONE_IDS.pro, PRO_ENTRY_POINT);
      expect(result.signal).toBe('SIGKILL');
      expect(result.stdout.trim()).toBe('3');
      const reopened = await harness().reopen();
      const ruleset = await reopened.rulesets.get(PRO, PRO_ENTRY_POINT);
      expect(ruleset?.version).toBe('3');
      expect(ruleset?.rules.map((r) => r.description)).toEqual(['acknowledged']);
    });
  });
}
