// A query whose SQL would depend on its arguments does not compile once: the types refuse it.
import { sql } from 'kysely';
import { expectTypeOf, test } from 'vitest';
import { compileOnce, type Param, type Params } from '../../src/store/query/compile-once';

test('arguments are stand-ins to place where a value goes, never values to choose SQL with', () => {
  // @ts-expect-error plain values: build would see the first call's and could branch on them
  compileOnce((db, zone: string) => db.selectFrom('rulesets').selectAll().where('zone_id', '=', zone));
  // @ts-expect-error an argument that may be missing: Kysely leaves an undefined value's condition out
  compileOnce((db, zone: Param<string | undefined>) => db.selectFrom('rulesets').selectAll().where('zone_id', '=', zone));
  // @ts-expect-error a list: its length shapes `in (...)`
  compileOnce((db, ids: Param<string[]>) => db.selectFrom('rulesets').selectAll().where('id', 'in', ids));
  compileOnce((db, kind: Param<string>) =>
    // @ts-expect-error compared with a value to choose the SQL
    kind === 'zone' ? db.selectFrom('rulesets').selectAll().where('zone_id', 'is not', null) : db.selectFrom('rulesets').selectAll(),
  );
  // @ts-expect-error a member of a value to branch on
  compileOnce((db, name: Param<string>) => db.selectFrom('rulesets').selectAll().limit(name.length));
  // @ts-expect-error an optional member of an object argument
  compileOnce((db, row: Params<{ id: string; phase?: string }>) => db.insertInto('rulesets').values({ id: row.id }));

  // What compiles once: each argument placed as a value, members read by name, constants as literals.
  const byZone = compileOnce((db, zone: Param<string>, row: Params<{ phase: string; version: number }>) =>
    db.selectFrom('rulesets').select('id').where('kind', '=', sql.lit('zone')).where('zone_id', '=', zone).where('phase', '=', row.phase).where('version', '>', row.version),
  );
  expectTypeOf(byZone).parameter(1).toEqualTypeOf<string>();
  expectTypeOf(byZone).parameter(2).toEqualTypeOf<{ phase: string; version: number }>();
});
