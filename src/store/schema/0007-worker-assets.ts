import type { Kysely, Migration } from 'kysely';

/* Migrations are frozen history: they use Kysely<any> on purpose, never today's table types. */
/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Workers static assets: their contents by hash, per account (shared by every version of the
 * account naming the same hash); each version's manifest and configuration; and the upload
 * sessions between `assets-upload-session` and the upload of the version that names them.
 */
export const workerAssets: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('worker_asset_contents')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('content_type', 'text')
      .addColumn('content', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('worker_asset_contents_pk', ['account_id', 'hash'])
      .execute();

    await db.schema
      .createTable('worker_asset_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('script_name', 'text', (c) => c.notNull())
      .addColumn('manifest', 'text', (c) => c.notNull())
      .addColumn('expires_on', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('worker_version_assets')
      .addColumn('version_id', 'text', (c) => c.primaryKey().references('worker_versions.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('script_name', 'text', (c) => c.notNull())
      .addColumn('manifest', 'text', (c) => c.notNull())
      .addColumn('config', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('worker_version_assets_script').on('worker_version_assets').columns(['account_id', 'script_name']).execute();
  },
};
