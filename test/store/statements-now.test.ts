// On SQLite, prepared statements run at once (synchronously) instead of through Kysely's
// connection queue, but only where that reads exactly what the queue would: outside transactions
// while no transaction holds the connection, and inside the transaction that holds it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql, SqliteDialect } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore, type Store } from '../../src/store';
import { preparedQuery, runStatementsNow } from '../../src/store/prepared-query';
import type { Database } from '../../src/store/schema/tables';
import { sqliteStatementsNow, withStatementCache } from '../../src/store/sqlite/open';
import { ZONE_IDS } from './contract/fixtures';

/** A promise and the function that settles it, to hold a transaction open at a chosen point. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('prepared statements run at once on SQLite', () => {
  let database: BetterSqlite3.Database;
  let db: Kysely<Database>;
  const versionOf = preparedQuery((d, id: string) => d.selectFrom('rulesets').select(['id', 'version']).where('id', '=', id));
  const setVersion = preparedQuery((d, id: string, version: number) => d.updateTable('rulesets').set({ version }).where('id', '=', id));

  beforeAll(async () => {
    database = new BetterSqlite3(':memory:');
    const statements = withStatementCache(database);
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
    runStatementsNow(db, sqliteStatementsNow(database, statements).committed);
    await sql`create table rulesets (id text primary key, version integer)`.execute(db);
    await sql`insert into rulesets values ('a', 1)`.execute(db);
  });
  afterAll(() => db.destroy());

  it('answers at once while the connection is free', () => {
    expect(versionOf.now(db, 'a')?.rows).toEqual([{ id: 'a', version: 1 }]);
    expect(versionOf.now(db, 'none')?.rows).toEqual([]);
  });

  it('does not run outside a transaction that holds the connection, and the queued read sees its commit', async () => {
    const held = gate();
    const inside = gate();
    const seen: string[] = [];
    let queued: Promise<unknown> | undefined;
    const transaction = db.transaction().execute(async (trx) => {
      const stop = runStatementsNow(trx, sqliteStatementsNow(database, withStatementCache(database)).inTransaction);
      try {
        // The transaction's own statements run at once and see its uncommitted write.
        expect(setVersion.now(trx, 'a', 2)?.numAffectedRows).toBe(1n);
        expect(versionOf.now(trx, 'a')?.rows).toEqual([{ id: 'a', version: 2 }]);
        // Outside it, nothing runs at once: the uncommitted version must not be read.
        expect(versionOf.now(db, 'a')).toBeUndefined();
        queued = versionOf(db, 'a').then((result) => {
          seen.push('read');
          return result.rows;
        });
        inside.open();
        await held.opened;
        seen.push('commit');
      } finally {
        stop();
      }
      // Once its runner is withdrawn, the transaction's handle no longer runs anything at once.
      expect(versionOf.now(trx, 'a')).toBeUndefined();
    });
    // (A failed expectation inside ends the transaction before it opens the gate.)
    await Promise.race([inside.opened, transaction]);
    held.open();
    await transaction;
    expect(await queued).toEqual([{ id: 'a', version: 2 }]);
    expect(seen).toEqual(['commit', 'read']);
  });

  it('turns an engine error into a rejected promise, not a throw', async () => {
    const broken = preparedQuery((d, id: string) => d.selectFrom('rulesets').select('id').where(sql.ref('missing_column'), '=', id));
    const call = () => broken(db, 'a');
    let result: Promise<unknown> | undefined;
    expect(() => (result = call())).not.toThrow();
    await expect(result).rejects.toThrow(/missing_column/);
  });
});

describe('the store reads around a write transaction in progress', () => {
  const opened: Store[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('never answers what an uncommitted transaction changed, even for a cached version', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'statements-now-'));
    dirs.push(dataDir);
    const store = await openSqliteStore({ dataDir });
    opened.push(store);
    const scope = { zone_id: ZONE_IDS.pro };
    const created = await store.rulesets.create(scope, { name: 'custom', kind: 'zone', phase: 'http_request_firewall_custom', rules: [] });
    // Read once: its version is now in the snapshot cache, the answer of the fast path.
    expect((await store.rulesets.getEntryPoint(scope, 'http_request_firewall_custom'))?.id).toBe(created.id);

    const held = gate();
    const deleted = gate();
    const rolledBack = store
      .transaction(async (tx) => {
        await tx.rulesets.delete(scope, created.id);
        deleted.open();
        await held.opened;
        throw new Error('roll back');
      })
      .catch((error: Error) => error.message);
    await deleted.opened;
    // The delete is not committed: reads issued now must not report the ruleset gone.
    const byId = store.rulesets.get(scope, created.id);
    const entryPoint = store.rulesets.getEntryPoint(scope, 'http_request_firewall_custom');
    held.open();
    expect(await rolledBack).toBe('roll back');
    expect((await byId)?.id).toBe(created.id);
    expect((await entryPoint)?.id).toBe(created.id);
  });
});
