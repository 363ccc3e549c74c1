import type { components } from '../../../generated/api';
import type { RulesetScope } from '../../store';
import { noEntrypoint, notFound } from '../http/errors';
import { noContent, type Context, type Handlers, type OperationId } from '../operations';
import { toApiRuleset } from '../rules/rule-inputs';
import { accountOwners, zoneOwners, type OwnerKind, type TwinContext } from './owners';

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

/** The entry point of a phase: 404 (10003) when there is none, as on the entry point itself. */
async function entryPointId<O extends OperationId>(context: Context<O>, scope: RulesetScope, phase: string): Promise<string> {
  const entryPoint = await context.store.rulesets.getEntryPoint(scope, phase);
  if (!entryPoint) throw noEntrypoint(phase);
  return entryPoint.id;
}

/** The versions of a ruleset and of a phase's entry point, in a zone or an account (`owners`). */
function versionOperations(owners: OwnerKind) {
  return {
    async list(context: TwinContext<'listZoneRulesetVersions', 'listAccountRulesetVersions'>) {
      const { scope } = await owners.of(context);
      return versionList(context, scope, context.params.ruleset_id);
    },

    async get(context: TwinContext<'getZoneRulesetVersion', 'getAccountRulesetVersion'>) {
      const { scope } = await owners.of(context);
      return oneVersion(context, scope, context.params.ruleset_id, context.params.ruleset_version);
    },

    async delete(context: TwinContext<'deleteZoneRulesetVersion', 'deleteAccountRulesetVersion'>) {
      const { scope } = await owners.of(context);
      await context.store.rulesets.deleteVersion(scope, context.params.ruleset_id, context.params.ruleset_version);
      return noContent;
    },

    async listOfEntryPoint(context: TwinContext<'listZoneEntrypointRulesetVersions', 'listAccountEntrypointRulesetVersions'>) {
      const { scope } = await owners.of(context);
      return versionList(context, scope, await entryPointId(context, scope, context.params.phase));
    },

    async getOfEntryPoint(context: TwinContext<'getZoneEntrypointRulesetVersion', 'getAccountEntrypointRulesetVersion'>) {
      const { scope } = await owners.of(context);
      return oneVersion(context, scope, await entryPointId(context, scope, context.params.phase), context.params.ruleset_version);
    },
  };
}

const zone = versionOperations(zoneOwners);
const account = versionOperations(accountOwners);

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
  | 'listAccountEntrypointRulesetVersions'
  | 'getAccountEntrypointRulesetVersion'
> = {
  listZoneRulesetVersions: zone.list,
  getZoneRulesetVersion: zone.get,
  deleteZoneRulesetVersion: zone.delete,
  listZoneEntrypointRulesetVersions: zone.listOfEntryPoint,
  getZoneEntrypointRulesetVersion: zone.getOfEntryPoint,
  listAccountRulesetVersions: account.list,
  getAccountRulesetVersion: account.get,
  deleteAccountRulesetVersion: account.delete,
  listAccountEntrypointRulesetVersions: account.listOfEntryPoint,
  getAccountEntrypointRulesetVersion: account.getOfEntryPoint,
};
