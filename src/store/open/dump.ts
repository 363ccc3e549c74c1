/**
 * The store's dump (StoreDump in store.ts): every table read page by page from one snapshot, and
 * loaded back into an empty store in one transaction, on either engine.
 */
import { sql, type Transaction } from 'kysely';
import { inBatches } from '../codecs';
import { StoreNotEmptyError, StoreDumpError } from '../errors';
import { KNOWN_MIGRATIONS, MIGRATION_TABLE_NAME } from '../schema/migrations';
import type { Database } from '../schema/tables';
import type { DumpRow, DumpValue, StoreDump } from '../store';
import type { Environment } from '../transaction/environment';
import { runInTransaction } from '../transaction/run-in-transaction';

/** Tables in an order that loads (owners before what they own), each with its primary key. */
const TABLES: readonly { name: keyof Database; key: readonly string[]; pageRows?: number }[] = [
  { name: 'accounts', key: ['id'] },
  { name: 'users', key: ['id'] },
  { name: 'invitations', key: ['id'] },
  { name: 'zones', key: ['id'] },
  { name: 'zone_waf', key: ['zone_id'] },
  { name: 'legacy_waf_packages', key: ['id'] },
  { name: 'legacy_waf_overrides', key: ['package_id', 'level', 'target_id'] },
  { name: 'uri_waf_overrides', key: ['id'] },
  { name: 'legacy_firewall_rules', key: ['id'] },
  { name: 'page_rules', key: ['id'] },
  { name: 'certificate_packs', key: ['id'] },
  { name: 'certificates', key: ['id'] },
  { name: 'rulesets', key: ['id'] },
  { name: 'rules', key: ['ruleset_id', 'id'] },
  { name: 'ruleset_versions', key: ['ruleset_id', 'version'] },
  { name: 'logpush_jobs', key: ['id'] },
  { name: 'worker_scripts', key: ['account_id', 'name'] },
  { name: 'worker_versions', key: ['id'] },
  // Module bytes (base64) are up to megabytes a row: a few rows a page keeps memory bounded.
  { name: 'worker_module_contents', key: ['account_id', 'sha256'], pageRows: 4 },
  { name: 'worker_deployments', key: ['id'] },
  { name: 'worker_subdomains', key: ['account_id'] },
  { name: 'worker_routes', key: ['id'] },
  { name: 'worker_schedules', key: ['account_id', 'script_name', 'cron'] },
  // Asset bytes (base64) are up to 25 MiB a row: one row a page.
  { name: 'worker_asset_contents', key: ['account_id', 'hash'], pageRows: 1 },
  { name: 'worker_asset_sessions', key: ['id'] },
  { name: 'worker_version_assets', key: ['version_id'] },
];
const TABLE_NAMES = new Set<string>(TABLES.map((table) => table.name));
/** Rows read per query: a page of a snapshot, so memory stays bounded whatever the table's size. */
const PAGE_ROWS = 500;
/** Text held before an insert when loading (rows of module bytes are large). */
const PENDING_TEXT = 8 * 1024 * 1024;

type AnyDb = Transaction<Record<string, Record<string, DumpValue>>>;

export function storeDump(env: Environment): StoreDump {
  const db = env.db as unknown as Transaction<Record<string, Record<string, DumpValue>>>;
  const anyRow = async (trx: AnyDb | typeof db): Promise<boolean> => {
    for (const { name } of TABLES) {
      if ((await trx.selectFrom(name).select(sql`1`.as('one')).limit(1).execute()).length > 0) return true;
    }
    return false;
  };
  return {
    async export(write) {
      await env.inTransaction.run(true, () =>
        env.db
          .transaction()
          .setAccessMode('read only')
          .execute(async (trx) => {
            const any = trx as unknown as AnyDb;
            await write({ kind: 'schema', migrations: await appliedMigrations(any) });
            for (const { name, key, pageRows = PAGE_ROWS } of TABLES) {
              for (let offset = 0; ; offset += pageRows) {
                let query = any.selectFrom(name).selectAll();
                for (const column of key) query = query.orderBy(column);
                const rows = await query.limit(pageRows).offset(offset).execute();
                for (const row of rows) await write({ kind: 'row', table: name, row: row as DumpRow });
                if (rows.length < pageRows) break;
              }
            }
            const counters = await trx.selectFrom('counters').select('name').orderBy('name').execute();
            for (const { name } of counters) {
              await write({ kind: 'counter', name, value: await env.engine.counters.last(trx, name) });
            }
          }),
      );
    },

    isEmpty: async () => !(await anyRow(db)),

    async import(entries) {
      const columns = await tableColumns(db);
      await runInTransaction(env, async (ctx) => {
        const trx = ctx.db as unknown as AnyDb;
        if (await anyRow(trx)) throw new StoreNotEmptyError(env.engine.location);
        const pending: DumpRow[] = [];
        let pendingTable = '';
        let pendingText = 0;
        const flush = async () => {
          for (const batch of inBatches(pending)) {
            try {
              await trx.insertInto(pendingTable).values(batch).execute();
            } catch (error) {
              throw new StoreDumpError(`table ${pendingTable} refused its rows: ${(error as Error).message}`, { cause: error });
            }
          }
          pending.length = 0;
          pendingText = 0;
        };
        let schemaSeen = false;
        for await (const entry of entries) {
          if (entry.kind === 'schema') {
            const unknown = entry.migrations.filter((name) => !KNOWN_MIGRATIONS.includes(name));
            if (unknown.length > 0) {
              throw new StoreDumpError(`the rows were written under a newer store schema (migrations ${unknown.join(', ')} are unknown here): load them with that version or a later one`);
            }
            schemaSeen = true;
          } else if (entry.kind === 'row') {
            if (!schemaSeen) throw new StoreDumpError('rows come before the schema they were written under');
            checkRow(entry.table, entry.row, columns);
            if (entry.table !== pendingTable || pending.length >= PAGE_ROWS || pendingText >= PENDING_TEXT) await flush();
            pendingTable = entry.table;
            pending.push(entry.row);
            for (const value of Object.values(entry.row)) if (typeof value === 'string') pendingText += value.length;
          } else {
            await flush();
            const known = await trx.selectFrom('counters').select('name').where('name', '=', entry.name).execute();
            if (known.length === 0) throw new StoreDumpError(`unknown counter ${JSON.stringify(entry.name)}`);
            if (!Number.isSafeInteger(entry.value) || entry.value < 0) {
              throw new StoreDumpError(`counter ${entry.name} must be a whole number, not ${JSON.stringify(entry.value)}`);
            }
            await env.engine.counters.continueAfter(ctx.db, entry.name, entry.value);
          }
        }
        await flush();
        if (!schemaSeen) throw new StoreDumpError('the dump has no schema entry');
      });
    },
  };
}

async function appliedMigrations(db: AnyDb): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE_NAME)} order by name`.execute(db);
  return rows.map((row) => row.name);
}

/** The columns of each dumped table, as the database has them. */
async function tableColumns(db: { introspection: { getTables(): Promise<{ name: string; columns: { name: string }[] }[]> } }) {
  const columns = new Map<string, Set<string>>();
  // A name found in several PostgreSQL schemas merges their columns: the insert itself has the last word.
  for (const table of (await db.introspection.getTables()).filter((table) => TABLE_NAMES.has(table.name))) {
    const known = columns.get(table.name) ?? new Set<string>();
    for (const column of table.columns) known.add(column.name);
    columns.set(table.name, known);
  }
  return columns;
}

function checkRow(table: string, row: DumpRow, columns: Map<string, Set<string>>): void {
  const known = columns.get(table);
  if (!known) throw new StoreDumpError(`unknown table ${JSON.stringify(table)}`);
  if (row === null || typeof row !== 'object' || Array.isArray(row)) throw new StoreDumpError(`a row of ${table} is not an object`);
  for (const [column, value] of Object.entries(row)) {
    if (!known.has(column)) throw new StoreDumpError(`table ${table} has no column ${JSON.stringify(column)}`);
    if (value !== null && typeof value !== 'string' && typeof value !== 'number') {
      throw new StoreDumpError(`column ${table}.${column} holds a ${typeof value}: only text, numbers and null are stored`);
    }
  }
}
