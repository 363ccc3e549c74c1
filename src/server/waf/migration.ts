import type { MigrationState, MigrationTransition, Zone } from '../../store';
import { ApiError, Codes, badRequest } from '../http/errors';
import { MAX_FIREWALL_EXPRESSION_BYTES, MAX_MIGRATED_FIREWALL_RULES } from './managed-rulesets';
import type { PreviousWaf } from './previous-waf';

export type MigrationMode = 'finish' | 'validation';

/** `waf_migration` query values: `pending`/`1` finish, `validation`/`2` enter validation mode. */
export function migrationMode(value: string): MigrationMode {
  return value === 'validation' || value === '2' ? 'validation' : 'finish';
}

/** Migration rule 1: zones with URI-based WAF overrides are not compatible. */
export function isCompatible(previous: PreviousWaf): boolean {
  return previous.config.uri_overrides.length === 0;
}

function refuse(code: number, message: string): ApiError {
  return badRequest(message, code);
}

/** Why the zone cannot migrate now (compatibility and the limits that need support), or nothing. */
export function migrationBlockers(zone: Zone, previous: PreviousWaf): ApiError | null {
  const config = previous.config;
  if (!isCompatible(previous)) {
    return refuse(
      Codes.migrationIncompatible,
      `zone ${zone.id} is not compatible with the migration: it has ${config.uri_overrides.length} URI-based WAF overrides; delete them first`,
    );
  }
  if (config.firewall_rules.length > MAX_MIGRATED_FIREWALL_RULES) {
    return refuse(
      Codes.tooManyFirewallRules,
      `the migration cannot proceed: zone ${zone.id} has ${config.firewall_rules.length} firewall rules to migrate and at most ${MAX_MIGRATED_FIREWALL_RULES} can be migrated; contact support`,
    );
  }
  const long = config.firewall_rules.find((rule) => Buffer.byteLength(rule.expression, 'utf8') > MAX_FIREWALL_EXPRESSION_BYTES);
  if (long) {
    return refuse(
      Codes.firewallRuleTooLong,
      `the migration cannot proceed: firewall rule ${long.id} of zone ${zone.id} has an expression of ${Buffer.byteLength(long.expression, 'utf8')} bytes, longer than the 4 KB that can be migrated; contact support`,
    );
  }
  return null;
}

/**
 * The state change a migration request asks for, following the state table: `start` to
 * `finished` (any plan) or `validation` (Enterprise only), `validation` to `finished`, or a new
 * configuration while staying in `validation`. A finished migration cannot be repeated.
 */
export function plannedTransition(zone: Zone, state: MigrationState, mode: MigrationMode): MigrationTransition {
  if (state === 'finished') {
    throw refuse(Codes.migrationFinished, `zone ${zone.id} has already migrated to the new WAF managed rules; the migration is irreversible and cannot run again (send the update without waf_migration)`);
  }
  if (mode === 'validation') {
    if (zone.plan.legacy_id !== 'enterprise') {
      throw refuse(
        Codes.validationModeEnterpriseOnly,
        `validation mode is available to Enterprise zones only; zone ${zone.id} is on the ${zone.plan.name} plan: use waf_migration=pending`,
      );
    }
    return { from: [state], to: 'validation', old_managed_rules_enabled: true, new_managed_rules_enabled: true };
  }
  return { from: [state], to: 'finished', old_managed_rules_enabled: false, new_managed_rules_enabled: true };
}

export function migrationRequired(zone: Zone, state: MigrationState): ApiError {
  const how =
    state === 'validation'
      ? 'the zone is in validation mode: send the configuration with waf_migration=pending to finish, or waf_migration=validation to keep validating'
      : 'deploy the managed rulesets with waf_migration=pending (or validation on Enterprise zones) and phase_two=1 on this entry point to migrate first';
  return refuse(Codes.migrationRequired, `zone ${zone.id} still uses the previous WAF managed rules: ${how}`);
}
