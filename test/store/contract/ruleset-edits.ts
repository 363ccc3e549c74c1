import { describe, expect, it } from 'vitest';
import {
  InvalidInputError,
  LatestVersionError,
  NotFoundError,
  ReadOnlyRulesetError,
  RuleChangedError,
  RuleLimitError,
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

  describe('rulesets: the caller checks a write before it, against the ruleset as a write finds it', () => {
    it('answers the ruleset a scope may write, and refuses as the write would', async () => {
      const store = await harness().fresh();
      const { id } = await threeRules(store);
      expect(descriptions(await store.rulesets.getWritable(BUSINESS, id))).toEqual(['a', 'b', 'c']);
      await expect(store.rulesets.getWritable(PRO, id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.rulesets.getWritable(BUSINESS, 'f'.repeat(32))).rejects.toBeInstanceOf(NotFoundError);
      for (const scope of [ACCOUNT, PRO]) {
        await expect(store.rulesets.getWritable(scope, OWASP_RULESET_ID)).rejects.toBeInstanceOf(ReadOnlyRulesetError);
      }
    });

    it('applies a patch only to the rule version it was checked against', async () => {
      const store = await harness().fresh();
      const { id, a, b } = await threeRules(store);
      const checked = (await store.rulesets.getWritable(BUSINESS, id)).rules.find((r) => r.id === a)!;
      // Another rule patched and this one moved: its own fields, and so its version, are as checked.
      await store.rulesets.updateRule(BUSINESS, id, b, { description: 'B' });
      await store.rulesets.updateRule(BUSINESS, id, a, {}, { position: { index: 3 } });
      const patched = await store.rulesets.updateRule(BUSINESS, id, a, { description: 'A' }, { expected_rule_version: checked.version });
      expect(descriptions(patched)).toEqual(['B', 'c', 'A']);
      // Changed since: refused, nothing written.
      await expect(store.rulesets.updateRule(BUSINESS, id, a, { description: 'A2' }, { expected_rule_version: checked.version })).rejects.toThrow(
        new RuleChangedError(id, a, checked.version, String(Number(checked.version) + 1)),
      );
      expect((await store.rulesets.get(BUSINESS, id))?.version).toBe(patched.version);
    });

    it('adds no rule beyond the most the ruleset may hold', async () => {
      const store = await harness().fresh();
      const { id } = await threeRules(store);
      const added = await store.rulesets.addRule(BUSINESS, id, rule('d'), { max_rules: 4 });
      expect(descriptions(added)).toEqual(['a', 'b', 'c', 'd']);
      await expect(store.rulesets.addRule(BUSINESS, id, rule('e'), { max_rules: 4 })).rejects.toThrow(new RuleLimitError(id, CUSTOM, 4, 5));
      expect((await store.rulesets.get(BUSINESS, id))?.version).toBe(added.version);
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
