import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';
import type { Database } from '../schema/tables';

/** Stands for the n-th argument, or one member of it, while a query is built, once. */
class Slot {
  constructor(
    readonly index: number,
    readonly member?: string,
  ) {}

  valueIn(args: readonly unknown[]): unknown {
    const arg = args[this.index];
    return this.member === undefined ? arg : (arg as Record<string, unknown>)[this.member];
  }
}

/** An argument's stand-in: itself a Slot, and each member read from it a Slot of that member. */
function standIn(index: number): Slot {
  return new Proxy(new Slot(index), {
    get: (target, key) => (typeof key === 'string' && !(key in target) ? new Slot(index, key) : Reflect.get(target, key)),
  });
}

interface Template {
  sql: string;
  /** Bound values as built: a Slot where an argument goes, the value itself for constants. */
  parameters: readonly unknown[];
}

/** A query built and compiled once per database engine, run with each call's values. */
export type CompiledOnce<Args extends unknown[], Row> = (db: Kysely<Database>, ...args: Args) => Promise<QueryResult<Row>>;

/**
 * A Kysely query built and compiled once per database engine, then run through Kysely
 * (`executeQuery` of a `CompiledQuery`, on the handle given: the store's or a transaction's) with
 * new values. Kysely builds and compiles every query anew on each call, which on SQLite costs as
 * much as running a small statement; the hot reads and writes of a request (a ruleset by id, an
 * entry point, the version bump) are compiled once with this instead. `build` must use its
 * arguments (or members read from an object argument) only as values, never to choose SQL, since
 * it runs once with stand-ins for them.
 */
export function compileOnce<Args extends unknown[], Row>(build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>): CompiledOnce<Args, Row> {
  // By the engine's adapter: one per Kysely instance, shared by its transactions.
  const templates = new WeakMap<object, Template>();
  return (db, ...args) => {
    const adapter = db.getExecutor().adapter;
    let template = templates.get(adapter);
    if (template === undefined) {
      const slots = args.map((_value, index) => standIn(index)) as unknown as Args;
      const { sql, parameters } = build(db, ...slots).compile();
      // Plain slots from here on (a scalar argument's stand-in is a proxy).
      template = { sql, parameters: parameters.map((value) => (value instanceof Slot ? new Slot(value.index, value.member) : value)) };
      templates.set(adapter, template);
    }
    const parameters = template.parameters.map((value) => (value instanceof Slot ? value.valueIn(args) : value));
    return db.executeQuery<Row>(CompiledQuery.raw(template.sql, parameters));
  };
}

/** The first row a query answers, if any. */
export async function firstRow<Row>(result: Promise<QueryResult<Row>>): Promise<Row | undefined> {
  return (await result).rows[0];
}
