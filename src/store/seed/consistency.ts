import type { SeedFile, SeedRule, SeedRuleset } from './schema';

export type SeedPath = readonly (string | number)[];

export interface SeedProblem {
  path: SeedPath;
  message: string;
}

/**
 * Rules the schema alone cannot state: ids unique across the file, references that point
 * at existing records, and execute rules that name a managed ruleset version, rules and
 * tags that exist.
 */
export function findInconsistencies(seed: SeedFile): SeedProblem[] {
  const problems: SeedProblem[] = [];
  const report = (path: SeedPath, message: string) => problems.push({ path, message });
  const unique = uniquenessChecker(report);

  seed.accounts.forEach((account, i) => unique('account id', account.id, ['accounts', i, 'id']));
  const accountIds = new Set(seed.accounts.map((account) => account.id));
  const usersById = new Map(seed.users.map((user) => [user.id, user]));
  seed.users.forEach((user, i) => {
    unique('user id', user.id, ['users', i, 'id']);
    unique('user email', user.email, ['users', i, 'email']);
  });

  seed.invitations.forEach((invitation, i) => {
    const at = ['invitations', i];
    unique('invitation id', invitation.id, [...at, 'id']);
    if (!accountIds.has(invitation.organization_id)) {
      report([...at, 'organization_id'], `no account ${invitation.organization_id}`);
    }
    const member = invitation.invited_member_id === null ? undefined : usersById.get(invitation.invited_member_id);
    if (invitation.invited_member_id !== null && member?.email !== invitation.invited_member_email) {
      report([...at, 'invited_member_id'], 'must name the user whose email is invited_member_email');
    }
  });

  const managed = new Map(seed.managed_rulesets.map((ruleset) => [ruleset.id, ruleset]));
  seed.managed_rulesets.forEach((ruleset, i) => checkRuleset(ruleset, ['managed_rulesets', i], managed, unique, report));

  seed.zones.forEach((zone, i) => {
    const at = ['zones', i];
    unique('zone id', zone.id, [...at, 'id']);
    unique('zone name', zone.name, [...at, 'name']);
    if (!accountIds.has(zone.account_id)) {
      report([...at, 'account_id'], `no account ${zone.account_id}`);
    }
    const packageIds = new Set(zone.waf.packages.map((pkg) => pkg.id));
    zone.waf.packages.forEach((pkg, j) => unique('WAF package id', pkg.id, [...at, 'waf', 'packages', j, 'id']));
    zone.waf.overrides.forEach((override, j) => {
      if (!packageIds.has(override.package_id)) {
        report([...at, 'waf', 'overrides', j, 'package_id'], `no package ${override.package_id} in this zone`);
      }
    });
    zone.waf.uri_overrides.forEach((o, j) => unique('URI override id', o.id, [...at, 'waf', 'uri_overrides', j, 'id']));
    zone.waf.firewall_rules.forEach((r, j) => unique('firewall rule id', r.id, [...at, 'waf', 'firewall_rules', j, 'id']));
    zone.waf.page_rules.forEach((r, j) => unique('page rule id', r.id, [...at, 'waf', 'page_rules', j, 'id']));

    zone.certificate_packs.forEach((pack, j) => {
      const packAt = [...at, 'certificate_packs', j];
      unique('certificate pack id', pack.id, [...packAt, 'id']);
      pack.certificates.forEach((certificate, k) => {
        unique('certificate id', certificate.id, [...packAt, 'certificates', k, 'id']);
        if (certificate.zone_id !== zone.id) {
          report([...packAt, 'certificates', k, 'zone_id'], `must be the zone's id ${zone.id}`);
        }
      });
      if (pack.primary_certificate !== null && !pack.certificates.some((c) => c.id === pack.primary_certificate)) {
        report([...packAt, 'primary_certificate'], 'must be the id of one of the pack’s certificates');
      }
    });

    const entryPointPhases = new Set<string>();
    zone.rulesets.forEach((ruleset, j) => {
      const rulesetAt = [...at, 'rulesets', j];
      checkRuleset(ruleset, rulesetAt, managed, unique, report);
      if (ruleset.kind === 'zone') {
        if (entryPointPhases.has(ruleset.phase)) {
          report([...rulesetAt, 'phase'], `a second zone entry point for phase ${ruleset.phase}`);
        }
        entryPointPhases.add(ruleset.phase);
      }
    });

    zone.logpush_jobs.forEach((job, j) => unique('log push job id', job.id, [...at, 'logpush_jobs', j, 'id']));
  });
  return problems;
}

type Report = (path: SeedPath, message: string) => void;
type Unique = (what: string, value: string | number, path: SeedPath) => void;

function uniquenessChecker(report: Report): Unique {
  const seen = new Map<string, SeedPath>();
  return (what, value, path) => {
    const key = `${what}\u0000${value}`;
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, path);
    } else {
      report(path, `duplicate ${what} ${value} (first at ${formatSeedPath(first)})`);
    }
  };
}

function checkRuleset(
  ruleset: SeedRuleset,
  at: SeedPath,
  managed: ReadonlyMap<string, SeedRuleset>,
  unique: Unique,
  report: Report,
): void {
  unique('ruleset id', ruleset.id, [...at, 'id']);
  const versions = [...(ruleset.previous_versions ?? []), { version: ruleset.version, rules: ruleset.rules }];
  const versionNumbers = new Set<string>();
  versions.forEach((entry, v) => {
    const isCurrent = v === versions.length - 1;
    const entryAt = isCurrent ? at : [...at, 'previous_versions', v];
    if (versionNumbers.has(entry.version)) {
      report([...entryAt, 'version'], `version ${entry.version} appears twice`);
    }
    versionNumbers.add(entry.version);
    if (!isCurrent && Number(entry.version) >= Number(ruleset.version)) {
      report([...entryAt, 'version'], `previous version ${entry.version} is not below the current ${ruleset.version}`);
    }
    const ruleIds = new Set<string>();
    entry.rules.forEach((rule, r) => {
      if (ruleIds.has(rule.id)) {
        report([...entryAt, 'rules', r, 'id'], `duplicate rule id ${rule.id} in this ruleset`);
      }
      ruleIds.add(rule.id);
      if (rule.action === 'execute') {
        checkExecuteRule(rule, [...entryAt, 'rules', r, 'action_parameters'], managed, report);
      }
    });
  });
}

/** An execute rule must point at a managed ruleset version, and override only what it has. */
function checkExecuteRule(
  rule: SeedRule,
  at: SeedPath,
  managed: ReadonlyMap<string, SeedRuleset>,
  report: Report,
): void {
  const parameters = rule.action_parameters ?? {};
  const target = typeof parameters.id === 'string' ? managed.get(parameters.id) : undefined;
  if (target === undefined) {
    report([...at, 'id'], 'must be the id of a managed ruleset in managed_rulesets');
    return;
  }
  const wanted = parameters.version ?? 'latest';
  const executed =
    wanted === 'latest' || wanted === target.version
      ? target
      : target.previous_versions?.find((entry) => entry.version === wanted);
  if (executed === undefined) {
    report([...at, 'version'], `must be "latest" or a version of ruleset ${target.id}`);
    return;
  }
  const ruleIds = new Set(executed.rules.map((managedRule) => managedRule.id));
  const tags = new Set(executed.rules.flatMap((managedRule) => managedRule.categories ?? []));
  const overrides = (parameters.overrides ?? {}) as { rules?: { id?: unknown }[]; categories?: { category?: unknown }[] };
  overrides.rules?.forEach((override, i) => {
    if (typeof override.id !== 'string' || !ruleIds.has(override.id)) {
      report([...at, 'overrides', 'rules', i, 'id'], `no rule ${String(override.id)} in ruleset ${target.id}`);
    }
  });
  overrides.categories?.forEach((override, i) => {
    if (typeof override.category !== 'string' || !tags.has(override.category)) {
      report([...at, 'overrides', 'categories', i, 'category'], `no tag ${String(override.category)} in ruleset ${target.id}`);
    }
  });
}

/** `zones[2].rulesets[0].rules[1].id`. */
export function formatSeedPath(path: SeedPath): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('') || '(top level)';
}
