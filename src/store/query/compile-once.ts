import { CompiledQuery, sql, type Compilable, type Expression, type Kysely, type OperationNode, type QueryResult } from 'kysely';
import type { Database } from '../schema/tables';

/*
 * Kysely builds and compiles every query anew on each call, which on SQLite costs as much as
 * running a small statement; the hot reads and writes of a request (a ruleset by id, an entry
 * point, the version bump) are built and compiled once per database engine instead, then run
 * through Kysely (`executeQuery` of a `CompiledQuery`, on the handle given: the store's or a
 * transaction's) with each call's values.
 *
 * Safe by construction: `build` runs once, with stand-ins for the arguments, so nothing about an
 * argument may choose the SQL. Its parameters are typed `Param`s (Kysely expressions that can only
 * be placed where a value goes: no member, length or comparison to branch on), and an argument may
 * only be a value bound as it is: never `undefined` (Kysely leaves an undefined value's column or
 * condition out of the SQL), never a list (its length would shape `in (...)`). What the types let
 * through fails at once: a stand-in turned into text or a number, or whose members are listed,
 * fails the first call (while building); a value that is not bindable fails the call that passes it.
 */

/** A value bound to a statement as it is. */
export type Bindable = string | number | bigint | null;

/** What `build` gets for an argument: an expression standing for its value, usable only where Kysely takes a value. */
export interface Param<T extends Bindable> extends Expression<T> {}

/** What `build` gets for an object argument: each member a Param (read by name, never listed). */
export type Params<T extends { readonly [member: string]: Bindable }> = { readonly [K in keyof T]: Param<T[K]> };

type StandIn = Param<Bindable> | { readonly [member: string]: Param<Bindable> };

/** The value a call passes for a stand-in `build` took. */
type ValueOf<S> = S extends Param<infer T> ? T : { -readonly [K in keyof S]: S[K] extends Param<infer T> ? T : never };

/** A query built and compiled once per database engine, run with each call's values. */
export type CompiledOnce<Args extends unknown[], Row> = (db: Kysely<Database>, ...args: Args) => Promise<QueryResult<Row>>;

/** Where a call's value goes: the n-th argument, or one member of it. */
class Slot {
  constructor(
    readonly index: number,
    readonly member: string | undefined,
  ) {}

  get name(): string {
    return `argument ${this.index + 1}${this.member === undefined ? '' : ` (member ${this.member})`}`;
  }

  valueIn(args: readonly unknown[]): Bindable {
    const arg = args[this.index];
    const value = this.member === undefined ? arg : arg === null || typeof arg !== 'object' ? undefined : (arg as Record<string, unknown>)[this.member];
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return value;
    throw new TypeError(
      `${this.name} of a query compiled once is ${Array.isArray(value) ? 'a list' : value === undefined ? 'undefined' : `a ${typeof value}`}: ` +
        'only strings, numbers and null are bound to SQL built once (a value that could change the SQL needs a query built per call)',
    );
  }
}

/** Keeps a stand-in's slot apart from the argument members read through it. */
const SLOT = Symbol('slot');

/** A Param: the slot as a bound value. */
class SlotExpression implements Param<Bindable> {
  readonly [SLOT]: Slot;

  constructor(slot: Slot) {
    this[SLOT] = slot;
  }

  get expressionType(): undefined {
    return undefined;
  }

  toOperationNode(): OperationNode {
    return sql.val(this[SLOT]).toOperationNode();
  }

  [Symbol.toPrimitive](): never {
    throw new TypeError(`${this[SLOT].name} was read as text or a number while its query was built once: use it only where a value goes`);
  }
}

/** An argument's stand-in: a Param, whose members (read by name) are the Params of its members. */
function standIn(index: number): StandIn {
  const expression = new SlotExpression(new Slot(index, undefined));
  return new Proxy(expression, {
    get: (target, key) => {
      if (typeof key !== 'string' || key in target) return Reflect.get(target, key);
      // Not a promise, whatever is asked of it.
      if (key === 'then') return undefined;
      return new SlotExpression(new Slot(index, key));
    },
    ownKeys: () => {
      throw new TypeError(`the members of argument ${index + 1} were listed while its query was built once: name each member the query binds`);
    },
  }) as unknown as StandIn;
}

interface Template {
  sql: string;
  /** Bound values as built: a Slot where an argument goes, the value itself for constants. */
  parameters: readonly unknown[];
}

/** A Kysely query built and compiled once per database engine (see above), run with each call's values. */
export function compileOnce<S extends StandIn[], Row>(
  build: (db: Kysely<Database>, ...params: S) => Compilable<Row>,
): CompiledOnce<{ [I in keyof S]: ValueOf<S[I]> }, Row> {
  // By the engine's adapter: one per Kysely instance, shared by its transactions.
  const templates = new WeakMap<object, Template>();
  return (db, ...args) => {
    const adapter = db.getExecutor().adapter;
    let template = templates.get(adapter);
    if (template === undefined) {
      const { sql: text, parameters } = build(db, ...(args.map((_value, index) => standIn(index)) as S)).compile();
      template = { sql: text, parameters };
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
