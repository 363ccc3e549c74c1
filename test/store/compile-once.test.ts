// A query compiled once answers exactly what building the same query each time answers, for any
// arguments, with constants kept and object members bound, inside and outside a transaction; and a
// query whose SQL would depend on its arguments fails at once (compile-once.test-d.ts: at the type
// level).
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileOnce, firstRow, type Param, type Params } from '../../src/store/query/compile-once';
import type { Database } from '../../src/store/schema/tables';

let db: Kysely<Database>;

beforeAll(async () => {
  db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
  await sql`create table rulesets (id text primary key, kind text, phase text, zone_id text, version integer, last_updated text)`.execute(db);
  await sql`insert into rulesets values ('a', 'zone', 'p1', 'z1', 1, 't0'), ('b', 'custom', 'p1', 'z1', 4, 't0'), ('c', 'zone', 'p2', 'z2', 7, 't0')`.execute(db);
});
afterAll(() => db.destroy());

const byZoneAndPhase = compileOnce((d, zone: Param<string>, phase: Param<string>) =>
  d.selectFrom('rulesets').select(['id', 'version']).where('kind', '=', sql.lit('zone')).where('zone_id', '=', zone).where('phase', '=', phase),
);
const bump = compileOnce((d, change: Params<{ id: string; from: number; to: number }>) =>
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
  it('refuses, at the call that passes it, a value that could change the SQL built once, and runs nothing', async () => {
    const logged: string[] = [];
    const watched = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }), log: (event) => void logged.push(event.query.sql) });
    await sql`create table rulesets (id text, kind text, phase text, zone_id text, version integer, last_updated text)`.execute(watched);
    logged.length = 0;
    // Kysely leaves a column set to undefined out of an update: the SQL built once would no longer say what the call means.
    const setPhase = compileOnce((d, row: Params<{ id: string; phase: string }>) => d.updateTable('rulesets').set({ phase: row.phase }).where('id', '=', row.id));
    await setPhase(watched, { id: 'a', phase: 'p' });
    const asIfOptional = { id: 'b' } as unknown as { id: string; phase: string };
    expect(() => setPhase(watched, asIfOptional)).toThrow(
      'argument 1 (member phase) of a query compiled once is undefined: only strings, numbers and null are bound to SQL built once',
    );
    const asIfOne = ['a', 'b'] as unknown as string;
    expect(() => byZoneAndPhase(watched, asIfOne, 'p1')).toThrow('argument 1 of a query compiled once is a list');
    expect(logged).toEqual(['update "rulesets" set "phase" = ? where "id" = ?']);
    await watched.destroy();
  });

  it('fails the first call of a query whose building reads an argument as a value or lists its members', () => {
    // Types let a template literal through; the stand-in refuses to become text.
    const byName = compileOnce((d, name: Param<string>) => d.selectFrom('rulesets').selectAll().where('id', '=', sql.lit(`${name}`)));
    expect(() => byName(db, 'a')).toThrow('argument 1 was read as text or a number while its query was built once');
    // Spreading an object argument lists its members: which columns it has would be the first call's.
    const setWhole = compileOnce((d, row: Params<{ kind: string; phase: string }>) => d.updateTable('rulesets').set({ ...row }));
    expect(() => setWhole(db, { kind: 'zone', phase: 'p1' })).toThrow('the members of argument 1 were listed while its query was built once');
  });
});
