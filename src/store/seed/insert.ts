import { inBatches, toFlag, toJson } from '../codecs';
import { LOGPUSH_JOB_COUNTER } from '../engine/counters';
import type { ReadContext, WriteContext } from '../transaction/context';
import { insertSeedRuleset } from './rulesets';
import type { SeedFile } from './schema';

/** A database holding none of the records a seed creates; only such a database is seeded. */
export async function isEmpty(db: ReadContext['db']): Promise<boolean> {
  const accounts = await db.selectFrom('accounts').select('id').limit(1).execute();
  const users = await db.selectFrom('users').select('id').limit(1).execute();
  const rulesets = await db.selectFrom('rulesets').select('id').limit(1).execute();
  return accounts.length === 0 && users.length === 0 && rulesets.length === 0;
}

/** Writes a checked seed into the database (inside the caller's transaction). */
export async function insertSeed(ctx: WriteContext, seed: SeedFile): Promise<void> {
  const { db } = ctx;
  for (const account of seed.accounts) {
    await db
      .insertInto('accounts')
      .values({ ...account, settings: toJson(account.settings) })
      .execute();
  }
  for (const user of seed.users) {
    await db
      .insertInto('users')
      .values({
        ...user,
        two_factor_authentication_enabled: toFlag(user.two_factor_authentication_enabled),
        suspended: toFlag(user.suspended),
      })
      .execute();
  }
  for (const invitation of seed.invitations) {
    await db
      .insertInto('invitations')
      .values({
        ...invitation,
        organization_is_enforcing_twofactor: toFlag(invitation.organization_is_enforcing_twofactor),
        roles: toJson(invitation.roles),
      })
      .execute();
  }
  for (const ruleset of seed.managed_rulesets) {
    await insertSeedRuleset(ctx, ruleset, { account_id: null, zone_id: null });
  }
  for (const zone of seed.zones) {
    await insertZone(ctx, zone);
  }
  const jobIds = seed.zones.flatMap((zone) => zone.logpush_jobs.map((job) => job.id));
  await ctx.engine.counters.continueAfter(db, LOGPUSH_JOB_COUNTER, Math.max(0, ...jobIds));
}

async function insertZone(ctx: WriteContext, zone: SeedFile['zones'][number]): Promise<void> {
  const { db } = ctx;
  const { waf, certificate_packs: packs, rulesets, logpush_jobs: jobs, ...record } = zone;
  await db
    .insertInto('zones')
    .values({
      ...record,
      paused: toFlag(record.paused),
      name_servers: toJson(record.name_servers),
      original_name_servers: record.original_name_servers === null ? null : toJson(record.original_name_servers),
      meta: toJson(record.meta),
      owner: toJson(record.owner),
      permissions: toJson(record.permissions),
      plan: toJson(record.plan),
    })
    .execute();

  await db
    .insertInto('zone_waf')
    .values({
      zone_id: zone.id,
      migration_state: waf.migration_state,
      old_managed_rules_enabled: toFlag(waf.old_managed_rules_enabled),
      new_managed_rules_enabled: toFlag(waf.new_managed_rules_enabled),
      modified_on: waf.modified_on,
    })
    .execute();
  for (const [position, pkg] of waf.packages.entries()) {
    await db.insertInto('legacy_waf_packages').values({ ...pkg, zone_id: zone.id, position }).execute();
  }
  for (const batch of inBatches(waf.overrides)) {
    await db
      .insertInto('legacy_waf_overrides')
      .values(batch.map((override) => ({ ...override, zone_id: zone.id })))
      .execute();
  }
  for (const override of waf.uri_overrides) {
    await db
      .insertInto('uri_waf_overrides')
      .values({
        ...override,
        zone_id: zone.id,
        urls: toJson(override.urls),
        paused: toFlag(override.paused),
        rules: toJson(override.rules),
        groups: toJson(override.groups),
        rewrite_action: override.rewrite_action === null ? null : toJson(override.rewrite_action),
      })
      .execute();
  }
  for (const batch of inBatches([...waf.firewall_rules.entries()])) {
    await db
      .insertInto('legacy_firewall_rules')
      .values(
        batch.map(([position, rule]) => ({
          ...rule,
          zone_id: zone.id,
          position,
          products: toJson(rule.products),
          paused: toFlag(rule.paused),
        })),
      )
      .execute();
  }
  for (const rule of waf.page_rules) {
    await db
      .insertInto('page_rules')
      .values({ ...rule, zone_id: zone.id, targets: toJson(rule.targets), actions: toJson(rule.actions) })
      .execute();
  }

  for (const { certificates, ...pack } of packs) {
    await db
      .insertInto('certificate_packs')
      .values({ ...pack, zone_id: zone.id, hosts: toJson(pack.hosts) })
      .execute();
    for (const [position, certificate] of certificates.entries()) {
      await db
        .insertInto('certificates')
        .values({ ...certificate, certificate_pack_id: pack.id, position, hosts: toJson(certificate.hosts) })
        .execute();
    }
  }

  for (const ruleset of rulesets) {
    await insertSeedRuleset(ctx, ruleset, { account_id: null, zone_id: zone.id });
  }
  for (const job of jobs) {
    await db
      .insertInto('logpush_jobs')
      .values({
        ...job,
        zone_id: zone.id,
        enabled: toFlag(job.enabled),
        last_complete: null,
        last_error: null,
        error_message: null,
      })
      .execute();
  }
}
