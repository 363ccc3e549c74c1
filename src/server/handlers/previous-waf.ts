import type { components } from '../../../generated/api';
import type { UriWafOverride, UriWafOverrideInput } from '../../store';
import { Codes, badRequest, notFound } from '../http/errors';
import type { Context, Handlers, OperationId } from '../operations';
import { DEFAULT_GROUP_MODE, DEFAULT_RULE_MODE } from '../waf/previous-catalogue';
import { contains, equals, listPage } from '../waf/previous-listing';
import { readPreviousWaf, refusePreviousWafAfterMigration, type PackageView, type PreviousWaf } from '../waf/previous-waf';
import { requireZone } from './access';

type OverrideInput = components['schemas']['WafOverrideInput'];
type WafOverride = components['schemas']['WafOverride'];

/** The zone of the path, still on the previous WAF (410 once migrated), and its previous WAF. */
async function previousWafOfPath<O extends OperationId>(context: Context<O>, zoneId: string): Promise<PreviousWaf> {
  const zone = await requireZone(context, zoneId);
  const [state, previous] = await Promise.all([context.store.waf.getState(zone.id), readPreviousWaf(context.store, zone.id)]);
  if (!state || !previous) throw notFound(context.path);
  refusePreviousWafAfterMigration(zone, state.migration_state);
  return previous;
}

function packageOf<O extends OperationId>(context: Context<O>, previous: PreviousWaf, packageId: string): PackageView {
  const view = previous.packages.find((p) => p.package.id === packageId);
  if (!view) throw notFound(context.path);
  return view;
}

function overrideOf<O extends OperationId>(context: Context<O>, previous: PreviousWaf, overrideId: string): UriWafOverride {
  const override = previous.config.uri_overrides.find((o) => o.id === overrideId);
  if (!override) throw notFound(context.path);
  return override;
}

/** The stored override as the API shows it (the document's maps are typed by action). */
function toApiOverride(override: UriWafOverride): WafOverride {
  return override as WafOverride;
}

/**
 * An override as the real service validates it: a non-empty `rules` or `groups` object whose
 * keys are rule and group ids of the zone's packages; defaults for what is left out.
 */
function overrideInput(previous: PreviousWaf, body: OverrideInput): UriWafOverrideInput {
  const rules = body.rules ?? {};
  const groups = body.groups ?? {};
  if (Object.keys(rules).length === 0 && Object.keys(groups).length === 0) {
    throw badRequest('an override needs a rules or a groups object with at least one entry (rule or group id: action)');
  }
  const ruleIds = new Set(previous.packages.flatMap((p) => p.rules.map((rule) => rule.id)));
  const groupIds = new Set(previous.packages.flatMap((p) => p.groups.map((group) => group.id)));
  const unknownRule = Object.keys(rules).find((id) => !ruleIds.has(id));
  if (unknownRule !== undefined) throw badRequest(`rules/${unknownRule} is not the id of a rule of this zone's WAF packages`);
  const unknownGroup = Object.keys(groups).find((id) => !groupIds.has(id));
  if (unknownGroup !== undefined) throw badRequest(`groups/${unknownGroup} is not the id of a rule group of this zone's WAF packages`);
  return {
    urls: body.urls,
    rules: rules as Record<string, string>,
    groups: groups as Record<string, string>,
    rewrite_action: (body.rewrite_action as Record<string, string> | undefined) ?? null,
    paused: body.paused ?? false,
    priority: body.priority ?? 1,
    description: body.description ?? '',
  };
}

export const previousWafHandlers: Pick<
  Handlers,
  | 'listWafPackages'
  | 'getWafPackage'
  | 'updateWafPackage'
  | 'listWafGroups'
  | 'getWafGroup'
  | 'updateWafGroup'
  | 'listWafRules'
  | 'getWafRule'
  | 'updateWafRule'
  | 'listWafOverrides'
  | 'getWafOverride'
  | 'createWafOverride'
  | 'updateWafOverride'
  | 'deleteWafOverride'
> = {
  async listWafPackages(context) {
    const previous = await previousWafOfPath(context, context.params.zone_id);
    const { name, ...query } = context.query;
    return listPage(
      previous.packages.map((view) => view.package),
      [{ value: name, matches: contains((p) => p.name) }],
      query,
      (p) => p.name,
    );
  },

  async getWafPackage(context) {
    const previous = await previousWafOfPath(context, context.params.zone_id);
    return { result: packageOf(context, previous, context.params.package_id).package };
  },

  async updateWafPackage(context) {
    const { zone_id, package_id } = context.params;
    const previous = await previousWafOfPath(context, zone_id);
    const view = packageOf(context, previous, package_id);
    if (view.detection_mode !== 'anomaly') {
      // The real service's answer for the managed package, which has neither setting.
      throw badRequest(
        `Only anomaly WAF packages can have their package attributes updated: package ${package_id} (${view.package.name}) has detection_mode ${view.detection_mode}, without sensitivity or action_mode`,
        Codes.wafPackageNotAnomaly,
      );
    }
    await context.store.waf.updatePackage(zone_id, package_id, context.body);
    return { result: await freshPackage(context, zone_id, package_id) };
  },

  async listWafGroups(context) {
    const previous = await previousWafOfPath(context, context.params.zone_id);
    const { name, mode, ...query } = context.query;
    return listPage(
      packageOf(context, previous, context.params.package_id).groups,
      [
        { value: name, matches: contains((g) => g.name) },
        { value: mode, matches: equals((g) => g.mode) },
      ],
      query,
      (g, order) => g[order],
    );
  },

  async getWafGroup(context) {
    const { zone_id, package_id, group_id } = context.params;
    const view = packageOf(context, await previousWafOfPath(context, zone_id), package_id);
    const group = view.groups.find((g) => g.id === group_id);
    if (!group) throw notFound(context.path);
    return { result: group };
  },

  async updateWafGroup(context) {
    const { zone_id, package_id, group_id } = context.params;
    const view = packageOf(context, await previousWafOfPath(context, zone_id), package_id);
    const group = view.groups.find((g) => g.id === group_id);
    if (!group) throw notFound(context.path);
    const { mode } = context.body;
    // A mode back at its default is forgotten, so the zone keeps only what it changed.
    await context.store.waf.setMode(zone_id, {
      package_id,
      level: 'group',
      target_id: group_id,
      description: group.name,
      mode: mode === DEFAULT_GROUP_MODE ? null : mode,
    });
    return { result: { ...group, mode } };
  },

  async listWafRules(context) {
    const previous = await previousWafOfPath(context, context.params.zone_id);
    const { description, mode, group_id, priority, ...query } = context.query;
    return listPage(
      packageOf(context, previous, context.params.package_id).rules,
      [
        { value: description, matches: contains((r) => r.description) },
        { value: mode, matches: equals((r) => r.mode) },
        { value: group_id, matches: equals((r) => r.group.id) },
        { value: priority, matches: equals((r) => r.priority) },
      ],
      query,
      (r, order) => (order === 'priority' ? Number(r.priority) : order === 'group_id' ? r.group.id : r.description),
    );
  },

  async getWafRule(context) {
    const { zone_id, package_id, waf_rule_id } = context.params;
    const view = packageOf(context, await previousWafOfPath(context, zone_id), package_id);
    const rule = view.rules.find((r) => r.id === waf_rule_id);
    if (!rule) throw notFound(context.path);
    return { result: rule };
  },

  async updateWafRule(context) {
    const { zone_id, package_id, waf_rule_id } = context.params;
    const view = packageOf(context, await previousWafOfPath(context, zone_id), package_id);
    const rule = view.rules.find((r) => r.id === waf_rule_id);
    if (!rule) throw notFound(context.path);
    const { mode } = context.body;
    if (!rule.allowed_modes.includes(mode)) {
      throw badRequest(
        `mode must be one of the rule's allowed_modes (${rule.allowed_modes.join(', ')}) for rule ${rule.id} of package ${package_id}, got ${mode}`,
      );
    }
    await context.store.waf.setMode(zone_id, {
      package_id,
      level: 'rule',
      target_id: rule.id,
      description: rule.description,
      mode: mode === DEFAULT_RULE_MODE[view.detection_mode] ? null : mode,
    });
    return { result: { ...rule, mode } };
  },

  async listWafOverrides(context) {
    const previous = await previousWafOfPath(context, context.params.zone_id);
    return listPage(previous.config.uri_overrides.map(toApiOverride), [], context.query, () => 0);
  },

  async getWafOverride(context) {
    const previous = await previousWafOfPath(context, context.params.zone_id);
    return { result: toApiOverride(overrideOf(context, previous, context.params.override_id)) };
  },

  async createWafOverride(context) {
    const { zone_id } = context.params;
    const previous = await previousWafOfPath(context, zone_id);
    if (context.body.id !== undefined) throw badRequest('id is chosen by the service: leave it out when creating an override');
    const created = await context.store.waf.createUriOverride(zone_id, overrideInput(previous, context.body));
    return { result: toApiOverride(created) };
  },

  async updateWafOverride(context) {
    const { zone_id, override_id } = context.params;
    const previous = await previousWafOfPath(context, zone_id);
    overrideOf(context, previous, override_id);
    if (context.body.id !== undefined && context.body.id !== override_id) {
      throw badRequest(`id ${context.body.id} in the body is not the id of the override of the path (${override_id})`);
    }
    const updated = await context.store.waf.updateUriOverride(zone_id, override_id, overrideInput(previous, context.body));
    return { result: toApiOverride(updated) };
  },

  async deleteWafOverride(context) {
    const { zone_id, override_id } = context.params;
    const previous = await previousWafOfPath(context, zone_id);
    overrideOf(context, previous, override_id);
    await context.store.waf.deleteUriOverride(zone_id, override_id);
    return { result: { id: override_id } };
  },
};

/** A package as the API shows it after a write, read back through the one reading path. */
async function freshPackage(context: Context<'updateWafPackage'>, zoneId: string, packageId: string) {
  const previous = await readPreviousWaf(context.store, zoneId);
  const view = previous?.packages.find((p) => p.package.id === packageId);
  if (!view) throw notFound(context.path);
  return view.package;
}
