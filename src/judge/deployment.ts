/**
 * What is deployed for a zone, read from the store and compiled: the entry points of each phase
 * (the account's before the zone's), every `execute` rule's target with its overrides applied in
 * advance, whether the new managed rules run (not while the zone is on the previous WAF), the
 * custom log fields and the zone's log push jobs. Built once per change, then judged against for
 * every request.
 */
import type { LogpushJob, Repositories, Rule, Ruleset, Zone } from '../store';
import type { CompiledRuleset, RulesetCompiler } from './compiled';
import { type CustomFieldConfig, customFieldsOf } from './custom-fields';
import { type EffectiveRule, effectiveRule, ownRule, paranoiaLevel, readOverrides } from './managed-overrides';

export const REQUEST_PHASES = ['http_request_firewall_custom', 'http_request_firewall_managed'] as const;
export const RESPONSE_PHASES = ['http_response_firewall_managed'] as const;
export const CUSTOM_FIELDS_PHASE = 'http_log_custom_fields';
export const MANAGED_PHASES: ReadonlySet<string> = new Set(['http_request_firewall_managed', 'http_response_firewall_managed']);

/** An entry point ruleset with the targets of its `execute` rules, by rule id. */
export interface DeployedRuleset {
  readonly compiled: CompiledRuleset;
  /** Each rule as it runs (an entry point's rules run as written). */
  readonly effective: readonly EffectiveRule[];
  readonly executions: ReadonlyMap<string, Execution>;
}

/** What an `execute` rule runs: the managed ruleset at the version it names, its rules as its overrides configure them. */
export interface Execution {
  readonly rulesetId: string;
  /** `latest` or the version the rule names. */
  readonly requestedVersion: string;
  /** Null when that ruleset (or version) does not exist for the zone's account. */
  readonly target: CompiledRuleset | null;
  /** The target's rules after the overrides, in the target's order. */
  readonly effective: readonly EffectiveRule[];
  /** The rule whose threshold the score is judged against (the last with one); -1 when the ruleset does not score. */
  readonly thresholdIndex: number;
  readonly paranoiaLevel: number | null;
}

export interface ZoneDeployment {
  readonly zone: Zone;
  /** False while the zone runs the previous WAF: the managed phases are then inactive. */
  readonly managedRulesActive: boolean;
  /** Entry points of the request and response phases, the account's first; absent phases have none. */
  readonly phases: ReadonlyMap<string, readonly DeployedRuleset[]>;
  readonly customFields: CustomFieldConfig;
  /** The zone's log push jobs, oldest first. */
  readonly logpushJobs: readonly LogpushJob[];
}

/**
 * Whether any request phase of the deployment holds a rule: without one, judging a request can
 * only come to nothing (no rule to match, skip or terminate), and the edge need not read it.
 */
export function judgesRequests(deployment: Pick<ZoneDeployment, 'phases'>): boolean {
  for (const phase of REQUEST_PHASES) {
    for (const entryPoint of deployment.phases.get(phase) ?? []) if (entryPoint.compiled.rules.length > 0) return true;
  }
  return false;
}

/** Reads and compiles what is deployed for a zone; null for a zone the store does not hold. */
export async function readDeployment(store: Repositories, zoneId: string, compiler: RulesetCompiler): Promise<ZoneDeployment | null> {
  const zone = await store.zones.get(zoneId);
  if (zone === null) return null;
  const account = { account_id: zone.account.id };
  const [waf, customFields, logpushJobs, ...entryPoints] = await Promise.all([
    store.waf.getState(zone.id),
    store.rulesets.getEntryPoint({ zone_id: zone.id }, CUSTOM_FIELDS_PHASE),
    store.logpushJobs.list(zone.id),
    ...[...REQUEST_PHASES, ...RESPONSE_PHASES].flatMap((phase) => [store.rulesets.getEntryPoint(account, phase), store.rulesets.getEntryPoint({ zone_id: zone.id }, phase)]),
  ]);
  const phases = new Map<string, DeployedRuleset[]>();
  for (const ruleset of entryPoints as (Ruleset | null)[]) {
    if (ruleset === null) continue;
    const deployed = await deployRuleset(store, account, ruleset, compiler);
    phases.set(ruleset.phase, [...(phases.get(ruleset.phase) ?? []), deployed]);
  }
  return Object.freeze({
    zone,
    managedRulesActive: waf?.new_managed_rules_enabled ?? true,
    phases,
    customFields: customFieldsOf(customFields),
    logpushJobs,
  });
}

async function deployRuleset(store: Repositories, account: { account_id: string }, ruleset: Ruleset, compiler: RulesetCompiler): Promise<DeployedRuleset> {
  const executions = new Map<string, Execution>();
  for (const rule of ruleset.rules) {
    if (rule.action === 'execute') executions.set(rule.id, await resolveExecution(store, account, rule, compiler));
  }
  return { compiled: compiler.ruleset(ruleset), effective: ruleset.rules.map(ownRule), executions };
}

async function resolveExecution(store: Repositories, account: { account_id: string }, rule: Rule, compiler: RulesetCompiler): Promise<Execution> {
  const parameters = rule.action_parameters ?? {};
  const rulesetId = typeof parameters.id === 'string' ? parameters.id : '';
  const requestedVersion = typeof parameters.version === 'string' ? parameters.version : 'latest';
  const managed = requestedVersion === 'latest' ? await store.rulesets.get(account, rulesetId) : await store.rulesets.getVersion(account, rulesetId, requestedVersion);
  if (managed === null) return { rulesetId, requestedVersion, target: null, effective: [], thresholdIndex: -1, paranoiaLevel: null };
  const overrides = readOverrides(parameters);
  return {
    rulesetId,
    requestedVersion,
    target: compiler.ruleset(managed),
    effective: managed.rules.map((managedRule) => effectiveRule(managedRule, overrides)),
    thresholdIndex: managed.rules.findLastIndex((managedRule) => managedRule.score_threshold !== undefined),
    paranoiaLevel: paranoiaLevel(managed.rules, overrides),
  };
}
