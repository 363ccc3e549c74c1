import type { Handlers } from '../operations';
import { notFound } from '../http/errors';
import { isCompatible } from '../waf/migration';
import { migrationConfig } from '../waf/migration-config';
import { MANAGED_PHASE, OWASP_RULESET_ID } from '../waf/managed-rulesets';
import { deployedParanoiaLevel } from '../waf/paranoia';
import { readPreviousWaf } from '../waf/previous-waf';
import { requireZone } from './access';

export const wafMigrationHandlers: Pick<Handlers, 'getWafMigrationCheck' | 'getWafMigrationConfig' | 'getWafMigrationStatus'> = {
  async getWafMigrationCheck(context) {
    const zone = await requireZone(context, context.params.zone_id);
    const [state, previous] = await Promise.all([context.store.waf.getState(zone.id), readPreviousWaf(context.store, zone.id)]);
    if (!state || !previous) throw notFound(context.path);
    return { result: { compatible: isCompatible(previous), migration_state: state.migration_state } };
  },

  async getWafMigrationConfig(context) {
    const zone = await requireZone(context, context.params.zone_id);
    const previous = await readPreviousWaf(context.store, zone.id);
    const owasp = await context.store.rulesets.get({ account_id: zone.account.id }, OWASP_RULESET_ID);
    const lastRule = owasp?.rules.at(-1);
    if (!previous || !lastRule) throw notFound(context.path);
    return { result: migrationConfig(previous, lastRule.id) as never };
  },

  async getWafMigrationStatus(context) {
    const zone = await requireZone(context, context.params.zone_id);
    const state = await context.store.waf.getState(zone.id);
    if (!state) throw notFound(context.path);
    const entryPoint = await context.store.rulesets.getEntryPoint({ zone_id: zone.id }, MANAGED_PHASE);
    return {
      result: {
        migration_state: state.migration_state,
        previous_managed_rules_enabled: state.old_managed_rules_enabled,
        new_managed_rules_enabled: state.new_managed_rules_enabled,
        validation_mode: state.migration_state === 'validation',
        paranoia_level: entryPoint ? deployedParanoiaLevel(entryPoint.rules) : null,
      },
    };
  },
};
