// Shared set-up of the simulator tests: a private in-memory store seeded with the fixtures, the
// request fixtures of this folder, and ways to deploy rules on the Pro zone.
import { readFileSync } from 'node:fs';
import { OWASP_RULESET_ID, OWASP_THRESHOLD_RULE_ID } from '../../fixtures/generator/owasp';
import { PLATFORM_MANAGED_RULESET_ID } from '../../fixtures/generator/platform-managed';
import { ZONE_IDS } from '../../fixtures/generator/zones';
import { simulate, type SimulationResult } from '../../src/simulator';
import { fixedClock, openSqliteStore, type JsonObject, type RuleInput, type Store } from '../../src/store';

export { OWASP_RULESET_ID, OWASP_THRESHOLD_RULE_ID, PLATFORM_MANAGED_RULESET_ID, ZONE_IDS };

export const PRO = ZONE_IDS.pro;
export const NOW = '2026-11-21T10:00:00.000000Z';
export const NOW_MS = Date.parse(NOW);

export function openStore(): Promise<Store> {
  return openSqliteStore({ filename: ':memory:', clock: fixedClock(NOW) });
}

export type FixtureName =
  | 'benign-browser'
  | 'sqli-union'
  | 'xss-script-tag'
  | 'path-traversal'
  | 'scanner-user-agent'
  | 'shellshock'
  | 'sqli-form-body';

export function fixturePath(name: FixtureName): string {
  return new URL(`fixtures/${name}.json`, import.meta.url).pathname;
}

/** A request fixture, parsed afresh (tests may change their copy). */
export function fixture(name: FixtureName): Record<string, unknown> {
  return JSON.parse(readFileSync(fixturePath(name), 'utf8')) as Record<string, unknown>;
}

export interface OwaspDeployment {
  /** Paranoia level 1-4: the tags of every higher level are disabled. */
  level?: number;
  threshold?: number;
  action?: string;
  categories?: JsonObject[];
  rules?: JsonObject[];
  version?: string;
  expression?: string;
  enabled?: boolean;
}

/** The execute rule deploying the OWASP ruleset with the dashboard's settings expressed as overrides. */
export function owaspRule(deployment: OwaspDeployment = {}): RuleInput {
  const { level = 4, threshold, action, categories = [], rules = [], version = 'latest', expression = 'true', enabled = true } = deployment;
  const paranoia = [];
  for (let higher = level + 1; higher <= 4; higher++) paranoia.push({ category: `paranoia-level-${higher}`, enabled: false });
  const lastRule =
    threshold === undefined && action === undefined
      ? []
      : [{ id: OWASP_THRESHOLD_RULE_ID, ...(threshold === undefined ? {} : { score_threshold: threshold }), ...(action === undefined ? {} : { action }) }];
  const overrides: JsonObject = {};
  if (paranoia.length + categories.length > 0) overrides.categories = [...paranoia, ...categories];
  if (lastRule.length + rules.length > 0) overrides.rules = [...lastRule, ...rules];
  return {
    action: 'execute',
    expression,
    enabled,
    description: 'Execute OWASP Core Ruleset',
    action_parameters: { id: OWASP_RULESET_ID, version, ...(Object.keys(overrides).length > 0 ? { overrides } : {}) },
  };
}

/** Replaces the rules of a phase entry point of the Pro zone. */
export async function deploy(store: Store, phase: string, rules: RuleInput[]): Promise<void> {
  await store.rulesets.putEntryPoint({ zone_id: PRO }, phase, { rules });
}

export function deployOwasp(store: Store, deployment: OwaspDeployment = {}): Promise<void> {
  return deploy(store, 'http_request_firewall_managed', [owaspRule(deployment)]);
}

/** Id of an OWASP rule by its Core Rule Set number. */
export async function owaspRuleId(store: Store, ref: string): Promise<string> {
  const owasp = await store.rulesets.get({ account_id: '023e105f4ecef8ad9ca31a8372d0c353' }, OWASP_RULESET_ID);
  const rule = owasp?.rules.find((candidate) => candidate.ref === ref);
  if (!rule) throw new Error(`no OWASP rule ${ref}`);
  return rule.id;
}

export function simulateFixture(store: Store, name: FixtureName, zoneId: string = PRO): Promise<SimulationResult> {
  return simulate(store, zoneId, fixture(name), { rayId: '0123456789abcdef' });
}

/** Refs of the rules that added to the OWASP score. */
export function contributions(result: SimulationResult): string[] {
  return result.owasp?.score.contributions.map((c) => c.ref) ?? [];
}
