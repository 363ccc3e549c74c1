import { describe, expect, it } from 'vitest';
import {
  InvalidInputError,
  LatestVersionError,
  NotFoundError,
  ReadOnlyRulesetError,
  VersionMismatchError,
  type RuleInput,
  type Ruleset,
  type Store,
} from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import { fixtureId, MAIN_ACCOUNT_ID, OWASP_RULESET_ID, PLATFORM_MANAGED_RULESET_ID, ZONE_IDS } from './fixtures';

const BUSINESS = { zone_id: ZONE_IDS.business };
const PRO = { zone_id: ZONE_IDS.pro };
const ACCOUNT = { account_id: MAIN_ACCOUNT_ID };
const CUSTOM = 'http_request_firewall_custom';

const rule = (description: string): RuleInput => ({ action: 'block', expression: `http.host eq "${description}.example"`, description });

/** A zone entry point of three rules a, b, c (version 1), and the ids of its rules. */
async function threeRules(store: Store) {
  const ruleset = await store.rulesets.create(BUSINESS, { name: 'custom', kind: 'zone', phase: CUSTOM, rules: [rule('a'), rule('b'), rule('c')] });
  const [a, b, c] = ruleset.rules.map((r) => r.id) as [string, string, string];
  return { id: ruleset.id, a, b, c };
}

const descriptions = (ruleset: { rules: { description: string }[] }) => ruleset.rules.map((r) => r.description);

export function rulesetEditsContract(harness: () => StoreHarness): void {
  describe('rulesets: one rule at a time', () => {
    it('adds a rule last by default, first, before, after or at an index, one version each', async () => {
      const store = await harness().fresh();
      const { id, a, c } = await threeRules(store);
      const last = await store.rulesets.addRule(BUSINESS, id, rule('d'));
      expect(descriptions(last)).toEqual(['a', 'b', 'c', 'd']);
      expect(last.version).toBe('2');
      const added = last.rules[3]!;
      expect(added).toMatchObject({ version: '1', ref: added.id, enabled: true });
      expect(descriptions(await store.rulesets.addRule(BUSINESS, id, rule('first'), { position: { before: '' } }))).toEqual(['first', 'a', 'b', 'c', 'd']);
      expect(descriptions(await store.rulesets.addRule(BUSINESS, id, rule('end'), { position: { after: '' } }))).toEqual(['first', 'a', 'b', 'c', 'd', 'end']);
      expect(descriptions(await store.rulesets.addRule(BUSINESS, id, rule('before-c'), { position: { before: c } }))).toEqual([
        'first', 'a', 'b', 'before-c', 'c', 'd', 'end',
      ]);
      expect(descriptions(await store.rulesets.addRule(BUSINESS, id, rule('after-a'), { position: { after: a } }))).toEqual([
        'first', 'a', 'after-a', 'b', 'before-c', 'c', 'd', 'end',
      ]);
      const indexed = await store.rulesets.addRule(BUSINESS, id, rule('second'), { position: { index: 2 } });
      expect(descriptions(indexed)).toEqual(['first', 'second', 'a', 'after-a', 'b', 'before-c', 'c', 'd', 'end']);
      expect(indexed.version).toBe('7');
      const atEnd = await store.rulesets.addRule(BUSINESS, id, rule('index-end'), { position: { index: indexed.rules.length + 1 } });
      expect(descriptions(atEnd).at(-1)).toBe('index-end');
      // The untouched rules keep their versions and timestamps.
      expect(atEnd.rules.find((r) => r.id === a)).toEqual(last.rules.find((r) => r.id === a));
    });

    it('refuses positions outside the ruleset, and changes nothing then', async () => {
      const store = await harness().fresh();
      const { id, a } = await threeRules(store);
      const other = await store.rulesets.create(PRO, { name: 'other', kind: 'custom', phase: CUSTOM, rules: [rule('x')] });
      const foreign = other.rules[0]!.id;
      await expect(store.rulesets.addRule(BUSINESS, id, rule('d'), { position: { before: foreign } })).rejects.toThrow(
        new InvalidInputError(`position.before: rule ${foreign} is not a rule of ruleset ${id}`),
      );
      await expect(store.rulesets.addRule(BUSINESS, id, rule('d'), { position: { index: 0 } })).rejects.toThrow(
        new InvalidInputError('position.index: 0 is outside the ruleset (1 to 4)'),
      );
      await expect(store.rulesets.addRule(BUSINESS, id, rule('d'), { position: { index: 5 } })).rejects.toThrow(InvalidInputError);
      await expect(store.rulesets.updateRule(BUSINESS, id, a, {}, { position: { index: 4 } })).rejects.toThrow(
        new InvalidInputError('position.index: 4 is outside the ruleset (1 to 3)'),
      );
      await expect(store.rulesets.updateRule(BUSINESS, id, a, {}, { position: { after: a } })).rejects.toThrow(
        new InvalidInputError('position.after: a rule cannot be placed relative to itself'),
      );
      const after = await store.rulesets.get(BUSINESS, id);
      expect(after?.version).toBe('1');
      expect(descriptions(after!)).toEqual(['a', 'b', 'c']);
    });

    it('moves a rule with a patch, changing its fields in the same version', async () => {
      const store = await harness().fresh();
      const { id, a, c } = await threeRules(store);
      const moved = await store.rulesets.updateRule(BUSINESS, id, a, {}, { position: { after: c } });
      expect(descriptions(moved)).toEqual(['b', 'c', 'a']);
      expect(moved.version).toBe('2');
      expect(moved.rules[2]!.version).toBe('1');
      const both = await store.rulesets.updateRule(BUSINESS, id, a, { enabled: false }, { position: { index: 1 } });
      expect(descriptions(both)).toEqual(['a', 'b', 'c']);
      expect(both.version).toBe('3');
      expect(both.rules[0]).toMatchObject({ id: a, enabled: false, version: '2' });
      expect((await store.rulesets.getVersion(BUSINESS, id, '2'))!.rules.map((r) => r.description)).toEqual(['b', 'c', 'a']);
    });

    it('deletes one rule, bumping the version once; unknown rules and rulesets are not found', async () => {
      const store = await harness().fresh();
      const { id, b } = await threeRules(store);
      const after = await store.rulesets.deleteRule(BUSINESS, id, b);
      expect(descriptions(after)).toEqual(['a', 'c']);
      expect(after.version).toBe('2');
      await expect(store.rulesets.deleteRule(BUSINESS, id, b)).rejects.toThrow(NotFoundError);
      await expect(store.rulesets.deleteRule(PRO, id, after.rules[0]!.id)).rejects.toThrow(NotFoundError);
      await expect(store.rulesets.addRule(BUSINESS, fixtureId('no-ruleset'), rule('x'))).rejects.toThrow(NotFoundError);
      await expect(store.rulesets.deleteRule(BUSINESS, id, after.rules[0]!.id, { expected_version: '1' })).rejects.toThrow(VersionMismatchError);
      expect((await store.rulesets.get(BUSINESS, id))?.version).toBe('2');
    });

    it('adds and deletes several rules in one transaction as one version', async () => {
      const store = await harness().fresh();
      const { id, a } = await threeRules(store);
      const result = await store.transaction(async (tx) => {
        await tx.rulesets.addRule(BUSINESS, id, rule('d'));
        await tx.rulesets.addRule(BUSINESS, id, rule('e'), { position: { before: '' } });
        return tx.rulesets.deleteRule(BUSINESS, id, a);
      });
      expect(descriptions(result)).toEqual(['e', 'b', 'c', 'd']);
      expect(result.version).toBe('2');
      expect((await store.rulesets.listVersions(BUSINESS, id))!.map((v) => v.version)).toEqual(['1', '2']);
    });

    it('never writes platform-managed rulesets, from a zone or an account', async () => {
      const store = await harness().fresh();
      for (const scope of [ACCOUNT, PRO]) {
        await expect(store.rulesets.addRule(scope, OWASP_RULESET_ID, rule('x'))).rejects.toThrow(ReadOnlyRulesetError);
        await expect(store.rulesets.delete(scope, PLATFORM_MANAGED_RULESET_ID)).rejects.toThrow(ReadOnlyRulesetError);
        await expect(store.rulesets.deleteVersion(scope, OWASP_RULESET_ID, '1')).rejects.toThrow(ReadOnlyRulesetError);
      }
      expect((await store.rulesets.get(ACCOUNT, OWASP_RULESET_ID))?.version).toBe('3');
    });
  });

  describe('rulesets: the caller checks a write against the ruleset as it stands', () => {
    it('hands the current ruleset to check once, after the writability check, before anything is written', async () => {
      const store = await harness().fresh();
      const { id, a } = await threeRules(store);
      const seen: string[][] = [];
      const check = (current: Ruleset) => {
        seen.push(descriptions(current));
      };
      const patched = await store.transaction((tx) => tx.rulesets.updateRule(BUSINESS, id, a, { description: 'A' }, { check }));
      expect(seen).toEqual([['a', 'b', 'c']]);
      const added = await store.transaction((tx) => tx.rulesets.addRule(BUSINESS, id, rule('d'), { check }));
      const replaced = await store.transaction((tx) => tx.rulesets.update(BUSINESS, id, { rules: [rule('x')] }, { check }));
      expect(seen).toEqual([['a', 'b', 'c'], ['A', 'b', 'c'], ['A', 'b', 'c', 'd']]);
      expect([patched.version, added.version, replaced.version]).toEqual(['2', '3', '4']);
    });

    it('writes nothing when check refuses, and never calls it for a ruleset the scope may not write', async () => {
      const store = await harness().fresh();
      const { id, a } = await threeRules(store);
      const refuse = () => {
        throw new Error('refused by the caller');
      };
      await expect(store.rulesets.updateRule(BUSINESS, id, a, { description: 'A' }, { check: refuse })).rejects.toThrow('refused by the caller');
      await expect(store.rulesets.addRule(BUSINESS, id, rule('d'), { check: refuse })).rejects.toThrow('refused by the caller');
      await expect(store.rulesets.update(BUSINESS, id, { rules: [] }, { check: refuse })).rejects.toThrow('refused by the caller');
      const unchanged = await store.rulesets.get(BUSINESS, id);
      expect(unchanged?.version).toBe('1');
      expect(descriptions(unchanged!)).toEqual(['a', 'b', 'c']);
      expect(await store.rulesets.listVersions(BUSINESS, id)).toHaveLength(1);
      let called = 0;
      const count = () => {
        called += 1;
      };
      await expect(store.rulesets.update(PRO, id, { rules: [] }, { check: count })).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.rulesets.addRule(ACCOUNT, OWASP_RULESET_ID, rule('d'), { check: count })).rejects.toBeInstanceOf(ReadOnlyRulesetError);
      await expect(store.rulesets.addRule(PRO, OWASP_RULESET_ID, rule('d'), { check: count })).rejects.toBeInstanceOf(ReadOnlyRulesetError);
      expect(called).toBe(0);
    });

    it('drops the parameters of a rule whose action a patch changes without sending new ones', async () => {
      const store = await harness().fresh();
      const created = await store.rulesets.create(BUSINESS, {
        name: 'skips',
        kind: 'zone',
        phase: CUSTOM,
        rules: [{ action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'true' }],
      });
      const ruleId = created.rules[0]!.id;
      const same = await store.rulesets.updateRule(BUSINESS, created.id, ruleId, { action: 'skip', description: 'kept' });
      expect(same.rules[0]?.action_parameters).toEqual({ ruleset: 'current' });
      const blocked = await store.rulesets.updateRule(BUSINESS, created.id, ruleId, { action: 'block' });
      expect(blocked.rules[0]).not.toHaveProperty('action_parameters');
      const skipped = await store.rulesets.updateRule(BUSINESS, created.id, ruleId, { action: 'skip', action_parameters: { ruleset: 'current' } });
      expect(skipped.rules[0]?.action_parameters).toEqual({ ruleset: 'current' });
    });
  });

  describe('rulesets: deleting and versions', () => {
    it('deletes a ruleset with its rules and versions, freeing its phase', async () => {
      const store = await harness().fresh();
      const { id } = await threeRules(store);
      await store.rulesets.addRule(BUSINESS, id, rule('d'));
      await store.rulesets.delete(BUSINESS, id);
      expect(await store.rulesets.get(BUSINESS, id)).toBeNull();
      expect(await store.rulesets.getVersion(BUSINESS, id, '1')).toBeNull();
      expect(await store.rulesets.listVersions(BUSINESS, id)).toBeNull();
      expect(await store.rulesets.getEntryPoint(BUSINESS, CUSTOM)).toBeNull();
      await expect(store.rulesets.delete(BUSINESS, id)).rejects.toThrow(NotFoundError);
      const again = await store.rulesets.putEntryPoint(BUSINESS, CUSTOM, { rules: [rule('z')] });
      expect(again.created).toBe(true);
      expect(again.ruleset.version).toBe('1');
    });

    it('deletes a ruleset it wrote earlier in the same transaction', async () => {
      const store = await harness().fresh();
      const { id } = await threeRules(store);
      await store.transaction(async (tx) => {
        await tx.rulesets.addRule(BUSINESS, id, rule('d'));
        await tx.rulesets.delete(BUSINESS, id);
      });
      expect(await store.rulesets.get(BUSINESS, id)).toBeNull();
    });

    it('does not delete another zone’s ruleset', async () => {
      const store = await harness().fresh();
      const { id } = await threeRules(store);
      await expect(store.rulesets.delete(PRO, id)).rejects.toThrow(NotFoundError);
      expect(await store.rulesets.get(BUSINESS, id)).not.toBeNull();
    });

    it('lists versions oldest first without rules, each as it was, immutable', async () => {
      const store = await harness().fresh();
      const { id, a } = await threeRules(store);
      await store.rulesets.updateRule(BUSINESS, id, a, { description: 'renamed' });
      await store.rulesets.update(BUSINESS, id, { name: 'renamed set', rules: [rule('only')] });
      const versions = (await store.rulesets.listVersions(BUSINESS, id))!;
      expect(versions.map((v) => [v.version, v.name])).toEqual([
        ['1', 'custom'],
        ['2', 'custom'],
        ['3', 'renamed set'],
      ]);
      expect(versions.every((v) => !('rules' in v) && v.id === id && v.phase === CUSTOM)).toBe(true);
      expect(descriptions((await store.rulesets.getVersion(BUSINESS, id, '1'))!)).toEqual(['a', 'b', 'c']);
      expect(descriptions((await store.rulesets.getVersion(BUSINESS, id, '2'))!)).toEqual(['renamed', 'b', 'c']);
      expect(await store.rulesets.listVersions(PRO, id)).toBeNull();
    });

    it('lists the versions of the platform’s managed rulesets from an account', async () => {
      const store = await harness().fresh();
      const versions = (await store.rulesets.listVersions(ACCOUNT, OWASP_RULESET_ID))!;
      expect(versions.map((v) => v.version)).toEqual(['1', '2', '3']);
      expect(await store.rulesets.listVersions(PRO, OWASP_RULESET_ID)).toBeNull();
    });

    it('deletes an earlier version, never the latest; unknown versions are not found', async () => {
      const store = await harness().fresh();
      const { id, a } = await threeRules(store);
      await store.rulesets.updateRule(BUSINESS, id, a, { enabled: false });
      await store.rulesets.deleteVersion(BUSINESS, id, '1');
      expect(await store.rulesets.getVersion(BUSINESS, id, '1')).toBeNull();
      expect((await store.rulesets.listVersions(BUSINESS, id))!.map((v) => v.version)).toEqual(['2']);
      await expect(store.rulesets.deleteVersion(BUSINESS, id, '2')).rejects.toThrow(new LatestVersionError(id, '2'));
      await expect(store.rulesets.deleteVersion(BUSINESS, id, '1')).rejects.toThrow(NotFoundError);
      await expect(store.rulesets.deleteVersion(BUSINESS, id, '01')).rejects.toThrow(NotFoundError);
      await expect(store.rulesets.deleteVersion(PRO, id, '1')).rejects.toThrow(NotFoundError);
      // Deleting a version is not a change of the ruleset.
      expect((await store.rulesets.get(BUSINESS, id))?.version).toBe('2');
    });
  });
}
