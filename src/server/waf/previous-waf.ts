import type { components } from '../../../generated/api';
import type { PreviousWafConfig, PreviousWafOverride, PreviousWafPackage, MigrationState, Store, Zone } from '../../store';
import { ApiError, Codes } from '../http/errors';
import {
  DEFAULT_GROUP_MODE,
  DEFAULT_RULE_MODE,
  GROUP_MODES,
  RULE_MODES,
  catalogueGroups,
  type CatalogueGroup,
  type CatalogueRule,
} from './previous-catalogue';

export type WafPackage = components['schemas']['WafPackage'];
export type WafGroup = components['schemas']['WafGroup'];
export type WafRule = components['schemas']['WafRule'];

/** One package of a zone's previous WAF with its groups and rules, modes as the zone set them. */
export interface PackageView {
  package: WafPackage;
  detection_mode: PreviousWafPackage['detection_mode'];
  groups: WafGroup[];
  rules: WafRule[];
}

/**
 * The previous WAF of a zone as it is now: what the previous API shows and the only thing the
 * migration reads, so the configuration it derives cannot drift from what that API answers.
 */
export interface PreviousWaf {
  config: PreviousWafConfig;
  packages: PackageView[];
  /** The OWASP (anomaly) package, whose global settings the migration carries. */
  owasp: WafPackage | undefined;
}

/** Reads a zone's previous WAF through the store (null for an unknown zone). */
export async function readPreviousWaf(store: Pick<Store, 'waf'>, zoneId: string): Promise<PreviousWaf | null> {
  const config = await store.waf.getPreviousConfig(zoneId);
  return config === null ? null : previousWafOf(zoneId, config);
}

export function previousWafOf(zoneId: string, config: PreviousWafConfig): PreviousWaf {
  const packages = config.packages.map((pkg) => packageView(zoneId, pkg, config.overrides));
  return { config, packages, owasp: packages.find((view) => view.detection_mode === 'anomaly')?.package };
}

function packageView(zoneId: string, pkg: PreviousWafPackage, overrides: readonly PreviousWafOverride[]): PackageView {
  const setModes = new Map(overrides.filter((o) => o.package_id === pkg.id).map((o) => [`${o.level}:${o.target_id}`, o.mode]));
  const ruleDefault = DEFAULT_RULE_MODE[pkg.detection_mode];
  const catalogue = catalogueGroups(pkg.detection_mode);
  const rules = catalogue.flatMap((group) => group.rules.map((rule) => ruleView(pkg, group, rule, setModes.get(`rule:${rule.id}`) ?? ruleDefault)));
  const groups = catalogue.map((group): WafGroup => {
    const own = rules.filter((rule) => rule.group.id === group.id);
    return {
      id: group.id,
      name: group.name,
      description: group.description,
      rules_count: own.length,
      modified_rules_count: own.filter((rule) => rule.mode !== ruleDefault).length,
      package_id: pkg.id,
      mode: (setModes.get(`group:${group.id}`) ?? DEFAULT_GROUP_MODE) as WafGroup['mode'],
      allowed_modes: [...GROUP_MODES],
    };
  });
  const anomaly = pkg.detection_mode === 'anomaly';
  return {
    package: {
      id: pkg.id,
      name: pkg.name,
      description: pkg.description,
      zone_id: zoneId,
      detection_mode: pkg.detection_mode,
      // Only the OWASP package has global settings; the managed package shows neither field.
      ...(anomaly ? { sensitivity: pkg.sensitivity ?? 'medium', action_mode: pkg.action_mode ?? 'block' } : {}),
    },
    detection_mode: pkg.detection_mode,
    groups,
    rules: rules.sort((a, b) => Number(a.priority) - Number(b.priority)),
  };
}

function ruleView(pkg: PreviousWafPackage, group: CatalogueGroup, rule: CatalogueRule, mode: string): WafRule {
  return {
    id: rule.id,
    description: rule.description,
    priority: rule.priority,
    group: { id: group.id, name: group.name },
    package_id: pkg.id,
    allowed_modes: [...RULE_MODES[pkg.detection_mode]] as WafRule['allowed_modes'],
    mode: mode as WafRule['mode'],
    ...(rule.default_mode ? { default_mode: rule.default_mode } : {}),
  };
}

/**
 * Every previous-WAF operation on a zone that uses the new WAF managed rules answers 410: the
 * official client documents 410 Gone for these operations. Validation mode still runs the
 * previous WAF, so its API keeps working until the migration finishes.
 */
export function refusePreviousWafAfterMigration(zone: Zone, state: MigrationState): void {
  if (state === 'finished') throw previousWafGone(zone.id);
}

/** The answer to the previous WAF's API on a zone that finished its migration to the new WAF. */
export function previousWafGone(zoneId: string): ApiError {
  return ApiError.of(
    410,
    Codes.previousWafGone,
    `zone ${zoneId} uses the new WAF managed rules: the previous WAF API (packages, groups, rules and URI-based overrides) no longer applies to it; configure the zone's http_request_firewall_managed entry point ruleset instead`,
  );
}
