import { describe, expect, it } from 'vitest';
import {
  EntryPointExistsError,
  InvalidInputError,
  isId,
  NotFoundError,
  ReadOnlyRulesetError,
  steppingClock,
  VersionMismatchError,
  type RuleInput,
} from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import {
  CUSTOM_FIELDS,
  FIREWALL_MANAGED,
  fixtureId,
  MAIN_ACCOUNT_ID,
  OWASP_RULESET_ID,
  OWASP_THRESHOLD_RULE_ID,
  PLATFORM_MANAGED_RULESET_ID,
  SECOND_ACCOUNT_ID,
  ZONE_IDS,
} from './fixtures';

const PRO = { zone_id: ZONE_IDS.pro };
const BUSINESS = { zone_id: ZONE_IDS.business };
const ACCOUNT = { account_id: MAIN_ACCOUNT_ID };
const PRO_ENTRY_POINT = fixtureId('pro-entry-point');
const START = '2026-11-21T10:00:00.000000Z';

const blockRule = (description: string): RuleInput => ({ action: 'block', expression: 'http.host eq "a.example"', description });

export function rulesetsContract(harness: () => StoreHarness): void {
  describe('rulesets: reading', () => {
    it('lists account rulesets without rules, the platform’s managed ones included', async () => {
      const store = await harness().fresh();
      for (const account of [MAIN_ACCOUNT_ID, SECOND_ACCOUNT_ID]) {
        const page = await store.rulesets.list({ account_id: account });
        expect(page.items.map((ruleset) => ruleset.id)).toEqual([OWASP_RULESET_ID, PLATFORM_MANAGED_RULESET_ID]);
        expect(page.items.every((ruleset) => !('rules' in ruleset))).toBe(true);
      }
      const [owasp] = (await store.rulesets.list(ACCOUNT)).items;
      expect(owasp).toEqual({
        id: OWASP_RULESET_ID,
        name: 'OWASP Core Ruleset',
        description: expect.stringContaining('OWASP') as string,
        source: 'firewall_managed',
        kind: 'managed',
        version: '3',
        last_updated: '2026-06-30T12:41:05.044712Z',
        phase: FIREWALL_MANAGED,
      });
    });

    it('lists zone rulesets with paging and ordering', async () => {
      const store = await harness().fresh();
      const page = await store.rulesets.list(PRO, { order: 'phase', direction: 'desc' });
      expect(page.items.map((ruleset) => ruleset.phase)).toEqual([FIREWALL_MANAGED, CUSTOM_FIELDS]);
      const second = await store.rulesets.list(PRO, { order: 'phase', per_page: 1, page: 2 });
      expect(second.items.map((ruleset) => ruleset.phase)).toEqual([FIREWALL_MANAGED]);
      expect(second.result_info.total_pages).toBe(2);
      expect((await store.rulesets.list(BUSINESS)).items).toEqual([]);
      await expect(store.rulesets.list(PRO, { order: 'rules' as 'name' })).rejects.toBeInstanceOf(InvalidInputError);
    });

    it('gets the OWASP ruleset with realistic rules and its threshold rule last', async () => {
      const store = await harness().fresh();
      const owasp = await store.rulesets.get(ACCOUNT, OWASP_RULESET_ID);
      const rules = owasp?.rules ?? [];
      expect(rules.length).toBeGreaterThan(40);
      expect(rules.at(-1)).toMatchObject({
        id: OWASP_THRESHOLD_RULE_ID,
        action: 'block',
        score_threshold: 40,
        description: '949110: Inbound anomaly score exceeded',
      });
      const scoring = rules.slice(0, -1);
      for (const rule of scoring) {
        expect(isId(rule.id)).toBe(true);
        expect(rule.score).toBeGreaterThan(0);
        expect(rule.categories?.filter((tag) => /^paranoia-level-[1-4]$/.test(tag))).toHaveLength(1);
      }
      const levels = new Set(scoring.flatMap((rule) => rule.categories ?? []).filter((tag) => tag.startsWith('paranoia-level-')));
      expect([...levels].sort()).toEqual(['paranoia-level-1', 'paranoia-level-2', 'paranoia-level-3', 'paranoia-level-4']);
      const sqli = scoring.find((rule) => rule.ref === '942190');
      expect(sqli?.expression).toContain('union\\s+(all\\s+)?select');
    });

    it('shows a zone ruleset only through its own zone', async () => {
      const store = await harness().fresh();
      expect((await store.rulesets.get(PRO, PRO_ENTRY_POINT))?.rules).toHaveLength(2);
      expect(await store.rulesets.get(BUSINESS, PRO_ENTRY_POINT)).toBeNull();
      expect(await store.rulesets.get(ACCOUNT, PRO_ENTRY_POINT)).toBeNull();
      expect(await store.rulesets.get(PRO, OWASP_RULESET_ID)).toBeNull();
      expect(await store.rulesets.get(PRO, fixtureId('nothing'))).toBeNull();
    });

    it('finds entry points by phase', async () => {
      const store = await harness().fresh();
      const entryPoint = await store.rulesets.getEntryPoint(PRO, FIREWALL_MANAGED);
      expect(entryPoint?.id).toBe(PRO_ENTRY_POINT);
      const execute = entryPoint?.rules.find((rule) => rule.action_parameters?.id === OWASP_RULESET_ID);
      expect(execute?.action_parameters?.overrides).toEqual({
        categories: [
          { category: 'paranoia-level-3', enabled: false },
          { category: 'paranoia-level-4', enabled: false },
        ],
        rules: [{ id: OWASP_THRESHOLD_RULE_ID, score_threshold: 25, action: 'managed_challenge' }],
      });
      expect((await store.rulesets.getEntryPoint(PRO, CUSTOM_FIELDS))?.rules[0]?.action).toBe('log_custom_field');
      expect(await store.rulesets.getEntryPoint(BUSINESS, FIREWALL_MANAGED)).toBeNull();
      expect(await store.rulesets.getEntryPoint(ACCOUNT, FIREWALL_MANAGED)).toBeNull();
    });

    it('keeps every version of a managed ruleset', async () => {
      const store = await harness().fresh();
      const current = await store.rulesets.get(ACCOUNT, OWASP_RULESET_ID);
      const [v1, v2, v3] = await Promise.all(['1', '2', '3'].map((v) => store.rulesets.getVersion(ACCOUNT, OWASP_RULESET_ID, v)));
      expect(v3).toEqual(current);
      expect([v1?.version, v2?.version]).toEqual(['1', '2']);
      const refs = (version: typeof v1) => version?.rules.map((rule) => rule.ref) ?? [];
      expect(refs(v1)).not.toContain('944150');
      expect(refs(v2)).toContain('944150');
      expect(refs(v2)).not.toContain('941380');
      expect(refs(v3)).toContain('941380');
      const scanner = (version: typeof v1) => version?.rules.find((rule) => rule.ref === '913100');
      expect(scanner(v2)?.version).toBe('1');
      expect(scanner(v3)?.version).toBe('2');
      expect(scanner(v3)?.expression).toContain('nuclei');
      expect(scanner(v2)?.expression).not.toContain('nuclei');
      for (const missing of ['4', '0', '01', 'latest', '1.0', '']) {
        expect(await store.rulesets.getVersion(ACCOUNT, OWASP_RULESET_ID, missing)).toBeNull();
      }
      expect(await store.rulesets.getVersion(BUSINESS, OWASP_RULESET_ID, '1')).toBeNull();
    });
  });

  describe('rulesets: writing', () => {
    it('creates a zone ruleset at version 1 with new ids and the clock’s time', async () => {
      const store = await harness().fresh({ clock: steppingClock(START) });
      const created = await store.rulesets.create(BUSINESS, {
        name: 'Custom fields',
        kind: 'zone',
        phase: CUSTOM_FIELDS,
        description: 'Headers in logs',
        rules: [
          {
            action: 'log_custom_field',
            expression: 'true',
            action_parameters: { request_fields: [{ name: 'x-trace' }] },
          },
        ],
      });
      expect(created).toMatchObject({ name: 'Custom fields', kind: 'zone', phase: CUSTOM_FIELDS, version: '1', description: 'Headers in logs' });
      expect(created).not.toHaveProperty('source');
      expect(isId(created.id)).toBe(true);
      expect(created.last_updated).toMatch(/^2026-11-21T10:00:00\.\d{6}Z$/);
      const [rule] = created.rules;
      expect(rule).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{32}$/) as string,
        version: '1',
        action: 'log_custom_field',
        action_parameters: { request_fields: [{ name: 'x-trace' }] },
        expression: 'true',
        description: '',
        ref: rule?.id,
        enabled: true,
        last_updated: created.last_updated,
      });
      expect(await store.rulesets.get(BUSINESS, created.id)).toEqual(created);
      expect(await store.rulesets.getEntryPoint(BUSINESS, CUSTOM_FIELDS)).toEqual(created);
      expect(await store.rulesets.getVersion(BUSINESS, created.id, '1')).toEqual(created);
    });

    it('refuses a second entry point for a phase, but not other kinds', async () => {
      const store = await harness().fresh();
      const error = await store.rulesets
        .create(PRO, { name: 'again', kind: 'zone', phase: FIREWALL_MANAGED })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EntryPointExistsError);
      expect(error).toMatchObject({ owner_id: ZONE_IDS.pro, phase: FIREWALL_MANAGED });
      const custom = await store.rulesets.create(PRO, { name: 'my rules', kind: 'custom', phase: 'http_request_firewall_custom' });
      expect(custom.kind).toBe('custom');
      expect((await store.rulesets.list(PRO)).result_info.total_count).toBe(3);
    });

    it('refuses to create in an unknown zone or account', async () => {
      const store = await harness().fresh();
      const input = { name: 'x', kind: 'zone', phase: FIREWALL_MANAGED };
      await expect(store.rulesets.create({ zone_id: fixtureId('no-zone') }, input)).rejects.toThrow(
        `zone ${fixtureId('no-zone')} not found`,
      );
      await expect(store.rulesets.create({ account_id: fixtureId('no-account') }, input)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('replaces all rules: known ids keep their rule, others get new ids, the version goes up once', async () => {
      const store = await harness().fresh({ clock: steppingClock(START) });
      const before = await store.rulesets.get(PRO, PRO_ENTRY_POINT);
      const [platform, owasp] = before?.rules ?? [];
      const updated = await store.rulesets.update(PRO, PRO_ENTRY_POINT, {
        rules: [
          { ...owasp!, id: owasp!.id },
          { ...platform!, id: platform!.id, enabled: false },
          { ...blockRule('new one'), id: 'ffffffffffffffffffffffffffffffff' },
          { ...blockRule('empty id'), id: '' },
        ],
      });
      expect(updated.version).toBe('3');
      expect(updated.last_updated > before!.last_updated).toBe(true);
      expect(updated.rules.map((rule) => rule.description)).toEqual([
        'Execute OWASP Core Ruleset',
        'Execute Platform Managed Ruleset',
        'new one',
        'empty id',
      ]);
      const [keptSame, keptChanged, fresh, blank] = updated.rules;
      expect(keptSame).toEqual(owasp);
      expect(keptChanged).toMatchObject({ id: platform!.id, version: '2', enabled: false, last_updated: updated.last_updated });
      expect(fresh?.id).not.toBe('ffffffffffffffffffffffffffffffff');
      expect(isId(fresh!.id) && isId(blank!.id) && fresh!.id !== blank!.id).toBe(true);
      expect(await store.rulesets.get(PRO, PRO_ENTRY_POINT)).toEqual(updated);
    });

    it('treats reordered keys of action parameters as no change', async () => {
      const store = await harness().fresh();
      const before = await store.rulesets.get(PRO, PRO_ENTRY_POINT);
      const owasp = before!.rules[1]!;
      const { id, version, overrides } = owasp.action_parameters as { id: string; version: string; overrides: unknown };
      const updated = await store.rulesets.update(PRO, PRO_ENTRY_POINT, {
        rules: [{ ...owasp, action_parameters: { overrides, version, id } }],
      });
      expect(updated.rules[0]?.version).toBe(owasp.version);
    });

    it('renames and describes a ruleset along with its rules', async () => {
      const store = await harness().fresh();
      const updated = await store.rulesets.update(PRO, PRO_ENTRY_POINT, { name: 'renamed', description: 'new words', rules: [] });
      expect(updated).toMatchObject({ name: 'renamed', description: 'new words', rules: [], version: '3' });
    });

    it('refuses duplicate rule ids, unknown rulesets and platform rulesets', async () => {
      const store = await harness().fresh();
      const before = await store.rulesets.get(PRO, PRO_ENTRY_POINT);
      const id = before!.rules[0]!.id;
      await expect(
        store.rulesets.update(PRO, PRO_ENTRY_POINT, { rules: [{ ...blockRule('a'), id }, { ...blockRule('b'), id }] }),
      ).rejects.toThrow(`rule id ${id} appears more than once in rules`);
      await expect(store.rulesets.update(BUSINESS, PRO_ENTRY_POINT, { rules: [] })).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.rulesets.update(ACCOUNT, OWASP_RULESET_ID, { rules: [] })).rejects.toBeInstanceOf(ReadOnlyRulesetError);
      await expect(
        store.rulesets.updateRule(ACCOUNT, OWASP_RULESET_ID, OWASP_THRESHOLD_RULE_ID, { enabled: false }),
      ).rejects.toBeInstanceOf(ReadOnlyRulesetError);
      expect(await store.rulesets.get(PRO, PRO_ENTRY_POINT)).toEqual(before);
      expect((await store.rulesets.get(ACCOUNT, OWASP_RULESET_ID))?.version).toBe('3');
    });

    it('writes only on top of the expected version when one is given', async () => {
      const store = await harness().fresh();
      const error = await store.rulesets
        .update(PRO, PRO_ENTRY_POINT, { rules: [] }, { expected_version: '1' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VersionMismatchError);
      expect((error as Error).message).toBe(`ruleset ${PRO_ENTRY_POINT} is at version 2, not 1`);
      const updated = await store.rulesets.update(PRO, PRO_ENTRY_POINT, { rules: [] }, { expected_version: '2' });
      expect(updated.version).toBe('3');
    });

    it('creates the entry point on the first PUT and replaces its rules afterwards', async () => {
      const store = await harness().fresh();
      const first = await store.rulesets.putEntryPoint(BUSINESS, FIREWALL_MANAGED, { rules: [blockRule('one')] });
      expect(first.created).toBe(true);
      expect(first.ruleset).toMatchObject({ name: 'default', kind: 'zone', phase: FIREWALL_MANAGED, version: '1', description: '' });
      const second = await store.rulesets.putEntryPoint(BUSINESS, FIREWALL_MANAGED, {
        name: 'zone entry point',
        rules: [blockRule('two')],
      });
      expect(second.created).toBe(false);
      expect(second.ruleset).toMatchObject({ id: first.ruleset.id, name: 'zone entry point', version: '2' });
      expect(second.ruleset.rules.map((rule) => rule.description)).toEqual(['two']);
      await expect(
        store.rulesets.putEntryPoint(BUSINESS, CUSTOM_FIELDS, { rules: [] }, { expected_version: '1' }),
      ).rejects.toBeInstanceOf(NotFoundError);
    });

    it('patches only the fields sent and answers the whole ruleset', async () => {
      const store = await harness().fresh({ clock: steppingClock(START) });
      const before = await store.rulesets.get(PRO, PRO_ENTRY_POINT);
      const owasp = before!.rules[1]!;
      const overrides = { categories: [{ category: 'paranoia-level-2', enabled: false }] };
      const patched = await store.rulesets.updateRule(PRO, PRO_ENTRY_POINT, owasp.id, {
        action_parameters: { id: OWASP_RULESET_ID, version: 'latest', overrides },
      });
      expect(patched.version).toBe('3');
      expect(patched.rules).toHaveLength(2);
      expect(patched.rules[0]).toEqual(before!.rules[0]);
      expect(patched.rules[1]).toEqual({
        ...owasp,
        action_parameters: { id: OWASP_RULESET_ID, version: 'latest', overrides },
        version: '2',
        last_updated: patched.last_updated,
      });
      const disabled = await store.rulesets.updateRule(PRO, PRO_ENTRY_POINT, owasp.id, { enabled: false, description: 'off' });
      expect(disabled.rules[1]).toMatchObject({ enabled: false, description: 'off', version: '3', expression: 'true' });
      expect(disabled.version).toBe('4');
    });

    it('removes optional fields patched to null and still bumps the version for a no-op patch', async () => {
      const store = await harness().fresh();
      const before = await store.rulesets.get(PRO, PRO_ENTRY_POINT);
      const platform = before!.rules[0]!;
      const cleared = await store.rulesets.updateRule(PRO, PRO_ENTRY_POINT, platform.id, { action: 'log', action_parameters: null });
      expect(cleared.rules[0]).not.toHaveProperty('action_parameters');
      expect(cleared.rules[0]?.action).toBe('log');
      const same = await store.rulesets.updateRule(PRO, PRO_ENTRY_POINT, platform.id, {});
      expect(same.version).toBe('4');
      expect(same.rules[0]).toEqual(cleared.rules[0]);
    });

    it('refuses to patch a rule that is not in the ruleset', async () => {
      const store = await harness().fresh();
      const error = await store.rulesets
        .updateRule(PRO, PRO_ENTRY_POINT, OWASP_THRESHOLD_RULE_ID, { enabled: false })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ entity: 'rule', id: OWASP_THRESHOLD_RULE_ID });
      expect((await store.rulesets.get(PRO, PRO_ENTRY_POINT))?.version).toBe('2');
    });

    it('keeps a snapshot of every version it writes', async () => {
      const store = await harness().fresh();
      const v2 = await store.rulesets.get(PRO, PRO_ENTRY_POINT);
      const v3 = await store.rulesets.update(PRO, PRO_ENTRY_POINT, { rules: [blockRule('three')] });
      const v4 = await store.rulesets.updateRule(PRO, PRO_ENTRY_POINT, v3.rules[0]!.id, { description: 'four' });
      expect(await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, '2')).toEqual(v2);
      expect(await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, '3')).toEqual(v3);
      expect(await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, '4')).toEqual(v4);
      expect((await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, '1'))?.rules.map((rule) => rule.description)).toEqual([
        'Execute OWASP Core Ruleset',
      ]);
      expect(await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, '5')).toBeNull();
    });
  });
}
