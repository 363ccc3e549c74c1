import type { components } from '../../../generated/api';
import type { RulesetScope } from '../../store';
import { ApiError, Codes, notFound } from '../http/errors';
import { noContent, type Context, type Handlers, type OperationId } from '../http/operations';
import { requireAccount, requireZone } from './access';
import { toApiRuleset } from './rulesets';

async function versionList<O extends OperationId>(context: Context<O>, scope: RulesetScope, rulesetId: string) {
  const versions = await context.store.rulesets.listVersions(scope, rulesetId);
  if (versions === null) throw notFound(context.path);
  // Summaries are the Ruleset schema without `rules`, as list items are.
  return { result: versions as unknown as components['schemas']['Ruleset'][] };
}

async function oneVersion<O extends OperationId>(context: Context<O>, scope: RulesetScope, rulesetId: string, version: string) {
  const ruleset = await context.store.rulesets.getVersion(scope, rulesetId, version);
  if (!ruleset) throw notFound(context.path);
  return { result: toApiRuleset(ruleset) };
}

/** The zone's entry point of a phase: 404 (10003) when it has none, as on the entry point itself. */
async function entryPointId<O extends OperationId>(context: Context<O>, zoneId: string, phase: string): Promise<string> {
  const entryPoint = await context.store.rulesets.getEntryPoint({ zone_id: zoneId }, phase);
  if (!entryPoint) throw ApiError.of(404, Codes.noEntrypoint, `could not find entrypoint ruleset in the ${phase} phase`);
  return entryPoint.id;
}

export const rulesetVersionHandlers: Pick<
  Handlers,
  | 'listZoneRulesetVersions'
  | 'getZoneRulesetVersion'
  | 'deleteZoneRulesetVersion'
  | 'listZoneEntrypointRulesetVersions'
  | 'getZoneEntrypointRulesetVersion'
  | 'listAccountRulesetVersions'
  | 'getAccountRulesetVersion'
  | 'deleteAccountRulesetVersion'
> = {
  async listZoneRulesetVersions(context) {
    const { zone_id, ruleset_id } = context.params;
    await requireZone(context, zone_id);
    return versionList(context, { zone_id }, ruleset_id);
  },

  async getZoneRulesetVersion(context) {
    const { zone_id, ruleset_id, ruleset_version } = context.params;
    await requireZone(context, zone_id);
    return oneVersion(context, { zone_id }, ruleset_id, ruleset_version);
  },

  async deleteZoneRulesetVersion(context) {
    const { zone_id, ruleset_id, ruleset_version } = context.params;
    await requireZone(context, zone_id);
    await context.store.rulesets.deleteVersion({ zone_id }, ruleset_id, ruleset_version);
    return noContent;
  },

  async listZoneEntrypointRulesetVersions(context) {
    const { zone_id, phase } = context.params;
    await requireZone(context, zone_id);
    return versionList(context, { zone_id }, await entryPointId(context, zone_id, phase));
  },

  async getZoneEntrypointRulesetVersion(context) {
    const { zone_id, phase, ruleset_version } = context.params;
    await requireZone(context, zone_id);
    return oneVersion(context, { zone_id }, await entryPointId(context, zone_id, phase), ruleset_version);
  },

  async listAccountRulesetVersions(context) {
    const { account_id, ruleset_id } = context.params;
    await requireAccount(context, account_id);
    return versionList(context, { account_id }, ruleset_id);
  },

  async getAccountRulesetVersion(context) {
    const { account_id, ruleset_id, ruleset_version } = context.params;
    await requireAccount(context, account_id);
    return oneVersion(context, { account_id }, ruleset_id, ruleset_version);
  },

  async deleteAccountRulesetVersion(context) {
    const { account_id, ruleset_id, ruleset_version } = context.params;
    await requireAccount(context, account_id);
    await context.store.rulesets.deleteVersion({ account_id }, ruleset_id, ruleset_version);
    return noContent;
  },
};
