import type { Kysely, Migration } from 'kysely';

/* Migrations are frozen history: they use Kysely<any> on purpose, never today's table types. */
/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Workers deployed through the API: scripts, their versions (module lists, bindings with secret
 * values sealed), the module contents those versions name (by SHA-256, shared by every version
 * of the account that has the same bytes), deployments, the account's workers.dev subdomain, zone
 * routes, and the change marker the runtime polls.
 */
export const workers: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('worker_scripts')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('tag', 'text', (c) => c.notNull().unique())
      .addColumn('workers_dev', 'integer', (c) => c.notNull())
      .addColumn('previews_enabled', 'integer', (c) => c.notNull())
      .addColumn('settings', 'text', (c) => c.notNull())
      .addColumn('last_version', 'integer', (c) => c.notNull())
      .addColumn('created_on', 'text', (c) => c.notNull())
      .addColumn('modified_on', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('worker_scripts_pk', ['account_id', 'name'])
      .execute();

    await db.schema
      .createTable('worker_versions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('script_name', 'text', (c) => c.notNull())
      .addColumn('number', 'integer', (c) => c.notNull())
      .addColumn('main_module', 'text', (c) => c.notNull())
      .addColumn('compatibility_date', 'text', (c) => c.notNull())
      .addColumn('compatibility_flags', 'text', (c) => c.notNull())
      .addColumn('bindings', 'text', (c) => c.notNull())
      .addColumn('modules', 'text', (c) => c.notNull())
      .addColumn('annotations', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('author_email', 'text')
      .addColumn('etag', 'text', (c) => c.notNull())
      .addColumn('handlers', 'text', (c) => c.notNull())
      .addColumn('created_on', 'text', (c) => c.notNull())
      .addForeignKeyConstraint('worker_versions_script', ['account_id', 'script_name'], 'worker_scripts', ['account_id', 'name'], (c) => c.onDelete('cascade'))
      .addUniqueConstraint('worker_versions_number', ['account_id', 'script_name', 'number'])
      .execute();

    await db.schema
      .createTable('worker_module_contents')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('sha256', 'text', (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('worker_module_contents_pk', ['account_id', 'sha256'])
      .execute();

    await db.schema
      .createTable('worker_deployments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('script_name', 'text', (c) => c.notNull())
      .addColumn('number', 'integer', (c) => c.notNull())
      .addColumn('strategy', 'text', (c) => c.notNull())
      .addColumn('versions', 'text', (c) => c.notNull())
      .addColumn('annotations', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('author_email', 'text')
      .addColumn('created_on', 'text', (c) => c.notNull())
      .addForeignKeyConstraint('worker_deployments_script', ['account_id', 'script_name'], 'worker_scripts', ['account_id', 'name'], (c) => c.onDelete('cascade'))
      .addUniqueConstraint('worker_deployments_number', ['account_id', 'script_name', 'number'])
      .execute();

    await db.schema
      .createTable('worker_subdomains')
      .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('subdomain', 'text', (c) => c.notNull().unique())
      .addColumn('created_on', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('worker_routes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('zone_id', 'text', (c) => c.notNull().references('zones.id').onDelete('cascade'))
      .addColumn('pattern', 'text', (c) => c.notNull())
      .addColumn('script', 'text')
      .addColumn('created_on', 'text', (c) => c.notNull())
      .addUniqueConstraint('worker_routes_pattern', ['zone_id', 'pattern'])
      .execute();

    await db.schema
      .createTable('worker_changes')
      .addColumn('scope', 'text', (c) => c.primaryKey())
      .addColumn('version', 'integer', (c) => c.notNull())
      .execute();
  },
};
