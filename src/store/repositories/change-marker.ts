import { createHash } from 'node:crypto';
import type { Executor } from '../transaction/executor';

/**
 * A digest of everything the edge judges and logs requests by: the id and version of every
 * ruleset of a zone or an account (any write gives its ruleset a new version; a created or deleted
 * ruleset adds or removes a row), each zone's migration state, and each log push job's settings
 * (not what its deliveries record). Read in one transaction, so it is one committed state; the
 * three statements read small tables, so several processes may ask several times a second.
 */
export async function changeMarker(executor: Executor): Promise<string> {
  return executor.read(async ({ db }) => {
    const rulesets = await db
      .selectFrom('rulesets')
      .select(['id', 'version'])
      .where((eb) => eb.or([eb('zone_id', 'is not', null), eb('account_id', 'is not', null)]))
      .orderBy('id')
      .execute();
    const waf = await db.selectFrom('zone_waf').select(['zone_id', 'migration_state', 'new_managed_rules_enabled']).orderBy('zone_id').execute();
    const jobs = await db
      .selectFrom('logpush_jobs')
      .select(['id', 'zone_id', 'account_id', 'name', 'dataset', 'destination_conf', 'logpull_options', 'output_options', 'enabled', 'frequency', 'kind'])
      .orderBy('id')
      .execute();
    return createHash('sha256').update(JSON.stringify([rulesets, waf, jobs])).digest('hex');
  });
}
