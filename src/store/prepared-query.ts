import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';
import type { StatementRunner } from './dialect';
import type { Database } from './schema/tables';

/** The database handles (the store's own, a running transaction) whose statements may run at once. */
const runners = new WeakMap<object, StatementRunner>();

/**
 * Prepared queries on `db` run through `runner` rather than Kysely's queue (see
 * DialectTraits.statementsNow) until the returned function is called.
 */
export function runStatementsNow(db: Kysely<Database>, runner: StatementRunner): () => void {
  runners.set(db, runner);
  return () => runners.delete(db);
}

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

/**
 * A Kysely query built and compiled once per database engine, then run with new values. Kysely
 * builds and compiles every query anew on each call, which on SQLite costs as much as running a
 * small statement; the hot reads and writes of a request (a ruleset by id, an entry point, the
 * version bump) are prepared with this instead. `build` must use its arguments (or members read
 * from an object argument) only as values, never to choose SQL, since it runs once with
 * stand-ins for them.
 */
export interface PreparedQuery<Args extends unknown[], Row> {
  (db: Kysely<Database>, ...args: Args): Promise<QueryResult<Row>>;
  /**
   * The same statement run at once where `db` allows it (see runStatementsNow); undefined when it
   * cannot run now, and the caller then takes the asynchronous way.
   */
  now(db: Kysely<Database>, ...args: Args): QueryResult<Row> | undefined;
}

export function preparedQuery<Args extends unknown[], Row>(build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>): PreparedQuery<Args, Row> {
  // By the engine's adapter: one per Kysely instance, shared by its transactions.
  const templates = new WeakMap<object, Template>();
  const compiled = (db: Kysely<Database>, args: Args): CompiledQuery => {
    const adapter = db.getExecutor().adapter;
    let template = templates.get(adapter);
    if (template === undefined) {
      const slots = args.map((_value, index) => standIn(index)) as unknown as Args;
      const { sql, parameters } = build(db, ...slots).compile();
      // Plain slots from here on (a scalar argument's stand-in is a proxy).
      template = { sql, parameters: parameters.map((value) => (value instanceof Slot ? new Slot(value.index, value.member) : value)) };
      templates.set(adapter, template);
    }
    return CompiledQuery.raw(template.sql, template.parameters.map((value) => (value instanceof Slot ? value.valueIn(args) : value)));
  };
  const now = (db: Kysely<Database>, ...args: Args): QueryResult<Row> | undefined => {
    const runner = runners.get(db);
    if (runner === undefined) return undefined;
    const { sql, parameters } = compiled(db, args);
    return runner(sql, parameters) as QueryResult<Row> | undefined;
  };
  const run = (db: Kysely<Database>, ...args: Args): Promise<QueryResult<Row>> => {
    const query = compiled(db, args);
    const runner = runners.get(db);
    if (runner !== undefined) {
      try {
        const result = runner(query.sql, query.parameters) as QueryResult<Row> | undefined;
        if (result !== undefined) return Promise.resolve(result);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return db.executeQuery<Row>(query);
  };
  return Object.assign(run, { now });
}

/** The first row a prepared query answers, if any. */
export async function firstRow<Row>(result: Promise<QueryResult<Row>>): Promise<Row | undefined> {
  return (await result).rows[0];
}
