import { sql, type Kysely, type Migration } from 'kysely';

/* Migrations are frozen history: they use Kysely<any> on purpose, never today's table types. */
/* eslint-disable @typescript-eslint/no-explicit-any */

export const initialSchema: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('settings', 'text', (c) => c.notNull())
      .addColumn('created_on', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('first_name', 'text')
      .addColumn('last_name', 'text')
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('telephone', 'text')
      .addColumn('country', 'text')
      .addColumn('zipcode', 'text')
      .addColumn('two_factor_authentication_enabled', 'integer', (c) => c.notNull())
      .addColumn('suspended', 'integer', (c) => c.notNull())
      .addColumn('created_on', 'text', (c) => c.notNull())
      .addColumn('modified_on', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('invitations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('invited_member_id', 'text')
      .addColumn('invited_member_email', 'text', (c) => c.notNull())
      .addColumn('organization_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('organization_is_enforcing_twofactor', 'integer', (c) => c.notNull())
      .addColumn('roles', 'text', (c) => c.notNull())
      .addColumn('invited_by', 'text', (c) => c.notNull())
      .addColumn('invited_on', 'text', (c) => c.notNull())
      .addColumn('expires_on', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('invitations_by_email')
      .on('invitations')
      .columns(['invited_member_email', 'invited_on'])
      .execute();

    await db.schema
      .createTable('zones')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('paused', 'integer', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('development_mode', 'integer', (c) => c.notNull())
      .addColumn('name_servers', 'text', (c) => c.notNull())
      .addColumn('original_name_servers', 'text')
      .addColumn('original_registrar', 'text')
      .addColumn('original_dnshost', 'text')
      .addColumn('created_on', 'text', (c) => c.notNull())
      .addColumn('modified_on', 'text', (c) => c.notNull())
      .addColumn('activated_on', 'text')
      .addColumn('meta', 'text', (c) => c.notNull())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('permissions', 'text', (c) => c.notNull())
      .addColumn('plan', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('zones_by_account').on('zones').columns(['account_id', 'name']).execute();

    await db.schema
      .createTable('zone_waf')
      .addColumn('zone_id', 'text', (c) => c.primaryKey().references('zones.id').onDelete('cascade'))
      .addColumn('migration_state', 'text', (c) => c.notNull())
      .addColumn('old_managed_rules_enabled', 'integer', (c) => c.notNull())
      .addColumn('new_managed_rules_enabled', 'integer', (c) => c.notNull())
      .addColumn('modified_on', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('legacy_waf_packages')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('zone_id', 'text', (c) => c.notNull().references('zones.id').onDelete('cascade'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('detection_mode', 'text', (c) => c.notNull())
      .addColumn('sensitivity', 'text')
      .addColumn('action_mode', 'text')
      .execute();
    await db.schema
      .createIndex('legacy_waf_packages_by_zone')
      .on('legacy_waf_packages')
      .columns(['zone_id', 'position'])
      .execute();

    await db.schema
      .createTable('legacy_waf_overrides')
      .addColumn('zone_id', 'text', (c) => c.notNull().references('zones.id').onDelete('cascade'))
      .addColumn('package_id', 'text', (c) => c.notNull().references('legacy_waf_packages.id').onDelete('cascade'))
      .addColumn('level', 'text', (c) => c.notNull())
      .addColumn('target_id', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('legacy_waf_overrides_pk', ['package_id', 'level', 'target_id'])
      .execute();
    await db.schema.createIndex('legacy_waf_overrides_by_zone').on('legacy_waf_overrides').column('zone_id').execute();

    await db.schema
      .createTable('uri_waf_overrides')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('zone_id', 'text', (c) => c.notNull().references('zones.id').onDelete('cascade'))
      .addColumn('urls', 'text', (c) => c.notNull())
      .addColumn('paused', 'integer', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('priority', 'integer', (c) => c.notNull())
      .addColumn('rules', 'text', (c) => c.notNull())
      .addColumn('groups', 'text', (c) => c.notNull())
      .addColumn('rewrite_action', 'text')
      .execute();
    await db.schema
      .createIndex('uri_waf_overrides_by_zone')
      .on('uri_waf_overrides')
      .columns(['zone_id', 'priority'])
      .execute();

    await db.schema
      .createTable('legacy_firewall_rules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('zone_id', 'text', (c) => c.notNull().references('zones.id').onDelete('cascade'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('expression', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('products', 'text', (c) => c.notNull())
      .addColumn('paused', 'integer', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('priority', 'integer')
      .execute();
    await db.schema
      .createIndex('legacy_firewall_rules_by_zone')
      .on('legacy_firewall_rules')
      .columns(['zone_id', 'position'])
      .execute();

    await db.schema
      .createTable('page_rules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('zone_id', 'text', (c) => c.notNull().references('zones.id').onDelete('cascade'))
      .addColumn('targets', 'text', (c) => c.notNull())
      .addColumn('actions', 'text', (c) => c.notNull())
      .addColumn('priority', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_on', 'text', (c) => c.notNull())
      .addColumn('modified_on', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('page_rules_by_zone').on('page_rules').columns(['zone_id', 'priority']).execute();

    await db.schema
      .createTable('certificate_packs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('zone_id', 'text', (c) => c.notNull().references('zones.id').onDelete('cascade'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('hosts', 'text', (c) => c.notNull())
      .addColumn('primary_certificate', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_on', 'text', (c) => c.notNull())
      .addColumn('validity_days', 'integer', (c) => c.notNull())
      .addColumn('validation_method', 'text', (c) => c.notNull())
      .addColumn('certificate_authority', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('certificate_packs_by_zone')
      .on('certificate_packs')
      .columns(['zone_id', 'status', 'created_on'])
      .execute();

    await db.schema
      .createTable('certificates')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('certificate_pack_id', 'text', (c) =>
        c.notNull().references('certificate_packs.id').onDelete('cascade'),
      )
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('hosts', 'text', (c) => c.notNull())
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('signature', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('bundle_method', 'text', (c) => c.notNull())
      .addColumn('zone_id', 'text', (c) => c.notNull())
      .addColumn('uploaded_on', 'text', (c) => c.notNull())
      .addColumn('modified_on', 'text', (c) => c.notNull())
      .addColumn('expires_on', 'text', (c) => c.notNull())
      .addColumn('priority', 'integer')
      .execute();
    await db.schema
      .createIndex('certificates_by_pack')
      .on('certificates')
      .columns(['certificate_pack_id', 'position'])
      .execute();

    await db.schema
      .createTable('rulesets')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
      .addColumn('zone_id', 'text', (c) => c.references('zones.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('phase', 'text', (c) => c.notNull())
      .addColumn('source', 'text')
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('last_updated', 'text', (c) => c.notNull())
      .addCheckConstraint('rulesets_single_owner', sql`account_id is null or zone_id is null`)
      .execute();
    await db.schema.createIndex('rulesets_by_zone').on('rulesets').columns(['zone_id', 'name']).execute();
    await db.schema.createIndex('rulesets_by_account').on('rulesets').columns(['account_id', 'name']).execute();
    // The one-entry-point-per-phase rule lives in the database too, so that two processes
    // creating the same entry point at once cannot both succeed.
    await db.schema
      .createIndex('rulesets_zone_entry_point')
      .on('rulesets')
      .columns(['zone_id', 'phase'])
      .unique()
      .where(sql.ref('kind'), '=', 'zone')
      .execute();
    await db.schema
      .createIndex('rulesets_account_entry_point')
      .on('rulesets')
      .columns(['account_id', 'phase'])
      .unique()
      .where(sql.ref('kind'), '=', 'root')
      .execute();

    await db.schema
      .createTable('rules')
      .addColumn('ruleset_id', 'text', (c) => c.notNull().references('rulesets.id').onDelete('cascade'))
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('action_parameters', 'text')
      .addColumn('expression', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('ref', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('categories', 'text')
      .addColumn('score', 'integer')
      .addColumn('score_threshold', 'integer')
      .addColumn('logging', 'text')
      .addColumn('last_updated', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('rules_pk', ['ruleset_id', 'id'])
      .execute();
    await db.schema.createIndex('rules_by_position').on('rules').columns(['ruleset_id', 'position']).execute();

    await db.schema
      .createTable('ruleset_versions')
      .addColumn('ruleset_id', 'text', (c) => c.notNull().references('rulesets.id').onDelete('cascade'))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('last_updated', 'text', (c) => c.notNull())
      .addColumn('snapshot', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('ruleset_versions_pk', ['ruleset_id', 'version'])
      .execute();

    await db.schema
      .createTable('logpush_jobs')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('zone_id', 'text', (c) => c.notNull().references('zones.id').onDelete('cascade'))
      .addColumn('name', 'text')
      .addColumn('dataset', 'text', (c) => c.notNull())
      .addColumn('destination_conf', 'text', (c) => c.notNull())
      .addColumn('logpull_options', 'text')
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('frequency', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('last_complete', 'text')
      .addColumn('last_error', 'text')
      .addColumn('error_message', 'text')
      .addColumn('created_on', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('logpush_jobs_by_zone').on('logpush_jobs').columns(['zone_id', 'id']).execute();

    await db.schema
      .createTable('counters')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'integer', (c) => c.notNull())
      .execute();
    await db.insertInto('counters').values({ name: 'logpush_jobs', value: 0 }).execute();
  },
};
