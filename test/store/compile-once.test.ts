// A query compiled once answers exactly what building the same query each time answers, for any
// arguments, with constants kept and object members bound, inside and outside a transaction.
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileOnce, firstRow } from '../../src/store/query/compile-once';
import type { Database } from '../../src/store/schema/tables';

let db: Kysely<Database>;

beforeAll(async () => {
  db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
  await sql`create table rulesets (id text primary key, kind text, phase text, zone_id text, version integer, last_updated text)`.execute(db);
  await sql`insert into rulesets values ('a', 'zone', 'p1', 'z1', 1, 't0'), ('b', 'custom', 'p1', 'z1', 4, 't0'), ('c', 'zone', 'p2', 'z2', 7, 't0')`.execute(db);
});
afterAll(() => db.destroy());

const byZoneAndPhase = compileOnce((d, zone: string, phase: string) =>
  d.selectFrom('rulesets').select(['id', 'version']).where('kind', '=', sql.lit('zone')).where('zone_id', '=', zone).where('phase', '=', phase),
);
const bump = compileOnce((d, change: { id: string; from: number; to: number }) =>
  d.updateTable('rulesets').set({ version: change.to }).where('id', '=', change.id).where('version', '=', change.from),
);

describe('compileOnce', () => {
  it('binds each call its own arguments and keeps the literals it was built with', async () => {
    expect((await byZoneAndPhase(db, 'z1', 'p1')).rows).toEqual([{ id: 'a', version: 1 }]);
    // 'b' matches zone and phase but not the literal kind 'zone'.
    expect((await byZoneAndPhase(db, 'z2', 'p2')).rows).toEqual([{ id: 'c', version: 7 }]);
    expect(await firstRow(byZoneAndPhase(db, 'z9', 'p1'))).toBeUndefined();
  });

  it('binds the members of an object argument and reports affected rows', async () => {
    expect((await bump(db, { id: 'b', from: 4, to: 5 })).numAffectedRows).toBe(1n);
    // A stale compare-and-set changes nothing.
    expect((await bump(db, { id: 'b', from: 4, to: 6 })).numAffectedRows).toBe(0n);
    const row = await db.selectFrom('rulesets').select('version').where('id', '=', 'b').executeTakeFirstOrThrow();
    expect(row.version).toBe(5);
  });

  it('runs inside a transaction, which sees its own uncommitted writes', async () => {
    await db
      .transaction()
      .execute(async (trx) => {
        expect((await bump(trx, { id: 'a', from: 1, to: 2 })).numAffectedRows).toBe(1n);
        expect((await byZoneAndPhase(trx, 'z1', 'p1')).rows).toEqual([{ id: 'a', version: 2 }]);
        throw new Error('roll back');
      })
      .catch((error: Error) => expect(error.message).toBe('roll back'));
    expect((await byZoneAndPhase(db, 'z1', 'p1')).rows).toEqual([{ id: 'a', version: 1 }]);
  });

  it('produces the SQL the builder produces', async () => {
    const built = db.selectFrom('rulesets').select(['id', 'version']).where('kind', '=', sql.lit('zone')).where('zone_id', '=', 'z1').where('phase', '=', 'p1').compile();
    const seen: string[] = [];
    const logged = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }),
      log: (event) => {
        seen.push(event.query.sql);
      },
    });
    await sql`create table rulesets (id text, kind text, phase text, zone_id text, version integer, last_updated text)`.execute(logged);
    await byZoneAndPhase(logged, 'z1', 'p1');
    await logged.destroy();
    expect(seen.at(-1)).toBe(built.sql);
  });
});
