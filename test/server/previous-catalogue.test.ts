// The previous WAF's catalogue of groups and rules, and the fixtures that name its ids.
import { describe, expect, it } from 'vitest';
import { buildSeed } from '../../fixtures/generator/build';
import { DEFAULT_RULE_MODE, RULE_MODES, catalogueGroups } from '../../src/server/waf/previous-catalogue';

const kinds = ['anomaly', 'traditional'] as const;

describe('the previous WAF catalogue', () => {
  it('has unique group and rule ids across both packages, in the shapes the API shows', () => {
    const groups = kinds.flatMap((kind) => catalogueGroups(kind));
    const rules = groups.flatMap((group) => group.rules);
    expect(new Set(groups.map((g) => g.id)).size).toBe(groups.length);
    expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
    expect(groups.every((g) => /^[0-9a-f]{32}$/.test(g.id) && g.rules.length > 0)).toBe(true);
    expect(rules.every((r) => /^[0-9]+$/.test(r.id) && /^[0-9]+$/.test(r.priority))).toBe(true);
  });

  it('gives a default action to managed package rules only, and defaults every mode to an allowed one', () => {
    expect(catalogueGroups('anomaly').flatMap((g) => g.rules).some((r) => r.default_mode !== undefined)).toBe(false);
    expect(catalogueGroups('traditional').flatMap((g) => g.rules).every((r) => r.default_mode !== undefined)).toBe(true);
    for (const kind of kinds) expect(RULE_MODES[kind]).toContain(DEFAULT_RULE_MODE[kind]);
  });

  it('knows every group and rule the fixtures set a mode on or override by URI', () => {
    const ids = (kind: (typeof kinds)[number]) => {
      const groups = catalogueGroups(kind);
      return { groups: new Set(groups.map((g) => g.id)), rules: new Set(groups.flatMap((g) => g.rules.map((r) => r.id))) };
    };
    const all = { groups: new Set(kinds.flatMap((k) => [...ids(k).groups])), rules: new Set(kinds.flatMap((k) => [...ids(k).rules])) };
    let named = 0;
    for (const zone of buildSeed().zones) {
      for (const setting of zone.waf.overrides) {
        const kind = zone.waf.packages.find((p) => p.id === setting.package_id)!.detection_mode;
        const known = setting.level === 'group' ? ids(kind).groups : ids(kind).rules;
        expect(known.has(setting.target_id), `${zone.name} ${setting.level} ${setting.target_id}`).toBe(true);
        expect(setting.level === 'group' ? ['on', 'off'] : RULE_MODES[kind]).toContain(setting.mode);
        named++;
      }
      for (const override of zone.waf.uri_overrides) {
        for (const id of Object.keys(override.rules)) expect(all.rules.has(id), `${zone.name} rule ${id}`).toBe(true);
        for (const id of Object.keys(override.groups)) expect(all.groups.has(id), `${zone.name} group ${id}`).toBe(true);
        named += Object.keys(override.rules).length + Object.keys(override.groups).length;
      }
    }
    expect(named).toBe(9);
  });
});
