/**
 * Compiles a checked tree into closures over a request context. Missing values
 * make comparisons false; `[*]` values evaluate to one result per element and
 * conditions over them to arrays of Booleans that `any`/`all` fold (logical
 * operators combine such arrays element by element, up to the shorter one).
 */
import { type Argument, type BytesLiteral, type Comparison, type Expression, type IntLiteral, type IpLiteral, type ListReference, type OrderingOp, type SetLiteral, type ValueExpr, isExpression, binaryToUtf8, type FilterType, isArray } from '../language';
import { type RequestContext, toRuntime } from './context';
import { FUNCTION_LIBRARY } from './function-library';
import { type ListValues, listMatcher, setMatcher } from './membership';
import { compileRegexMatcher } from './regex-matcher';
import { compileWildcard, parseIp } from '../literals';
import { type MaybeValue, type Runtime, asArray, asMap, isIp } from './runtime';

export interface CompileOptions {
  /** Values of the lists named with `$name`; a list not given matches nothing. */
  readonly lists?: Readonly<Record<string, ListValues>>;
}

export interface CompiledFilter {
  /**
   * Whether the expression matches the request. Given an EvaluationScope, the fields it has
   * converted already are reused: many expressions over one request read each field once.
   */
  evaluate(context: RequestContext | EvaluationScope): boolean;
}

/**
 * One request's context as evaluations read it: each field converted to its runtime form at most
 * once, however many expressions read it. The context must not change once a scope is open on it.
 */
export class EvaluationScope {
  private readonly cache = new Map<string, MaybeValue>();
  constructor(private readonly context: RequestContext) {}

  field(name: string, type: FilterType): MaybeValue {
    if (this.cache.has(name)) return this.cache.get(name);
    const raw = Object.hasOwn(this.context, name) ? this.context[name] : undefined;
    const value = raw === undefined ? undefined : toRuntime(raw, type, name);
    this.cache.set(name, value);
    return value;
  }
}

type One<T> = { readonly many: false; readonly run: (env: EvaluationScope) => T };
type Many<T> = { readonly many: true; readonly run: (env: EvaluationScope) => T[] };
type Compiled<T> = One<T> | Many<T>;

/**
 * A value through `[*]`: the elements, flattened over every `[*]` of the
 * path, or undefined when the value the first `[*]` applies to is missing
 * (then a call mapped over it is missing too, not an empty array).
 */
type Mapped = { readonly many: true; readonly run: (env: EvaluationScope) => Runtime[] | undefined };
type CompiledValue = One<MaybeValue> | Mapped;

function present(value: MaybeValue): value is Runtime {
  return value !== undefined;
}

function elements(value: MaybeValue): Runtime[] {
  const list = asArray(value);
  if (list) return [...list];
  const map = asMap(value);
  return map ? [...map.values()] : [];
}

function step(value: MaybeValue, index: ValueExpr & { kind: 'index' }): MaybeValue {
  const s = index.step;
  if (s.kind === 'element') return asArray(value)?.[s.position];
  if (s.kind === 'key') return asMap(value)?.get(s.key);
  return undefined;
}

function compileIndex(node: ValueExpr & { kind: 'index' }, options: CompileOptions): CompiledValue {
  const target = compileValue(node.target, options);
  if (node.step.kind === 'each') {
    if (target.many) return { many: true, run: (env) => target.run(env)?.flatMap(elements) };
    return {
      many: true,
      run: (env) => {
        const value = target.run(env);
        return value === undefined ? undefined : elements(value);
      },
    };
  }
  if (target.many) return { many: true, run: (env) => target.run(env)?.map((v) => step(v, node)).filter(present) };
  return { many: false, run: (env) => step(target.run(env), node) };
}

function compileCall(node: ValueExpr & { kind: 'call' }, options: CompileOptions): One<MaybeValue> {
  const args = node.args.map((arg) => compileArgument(arg, options));
  const literals = node.args.map((arg) => (arg.kind === 'bytes' || arg.kind === 'int' ? arg.value : undefined));
  const factory = FUNCTION_LIBRARY[node.name];
  if (!factory) throw new Error(`no implementation for function ${node.name}`);
  const call = factory(literals);
  const [first, ...rest] = args;
  const single = (a: CompiledValue | undefined, env: EvaluationScope): MaybeValue => (a === undefined || a.many ? undefined : a.run(env));
  if (first?.many) {
    // Mapped over its first argument: one call per element, the results (missing ones dropped) as an array.
    return {
      many: false,
      run: (env) => {
        const others = rest.map((a) => single(a, env));
        return first.run(env)?.flatMap((element) => {
          const result = call([element, ...others]);
          return result === undefined ? [] : [result];
        });
      },
    };
  }
  return { many: false, run: (env) => call(args.map((a) => single(a, env))) };
}

function compileValue(node: ValueExpr, options: CompileOptions): CompiledValue {
  if (node.kind === 'field') return { many: false, run: (env) => env.field(node.name, node.type) };
  if (node.kind === 'index') return compileIndex(node, options);
  return compileCall(node, options);
}

function compileArgument(arg: Argument, options: CompileOptions): CompiledValue {
  if (arg.kind === 'bytes' || arg.kind === 'int') {
    const value = arg.value;
    return { many: false, run: () => value };
  }
  if (arg.kind === 'ip') {
    const address = parseIp(arg.address);
    return { many: false, run: () => address };
  }
  if (!isExpression(arg)) return compileValue(arg, options);
  const condition = compileExpression(arg, options);
  // A condition passed to a function is its value: a Boolean, or an array of them.
  return condition.many ? { many: false, run: (env) => condition.run(env) } : condition;
}

function compileSet(rhs: SetLiteral | ListReference, options: CompileOptions, type: FilterType) {
  return rhs.kind === 'set' ? setMatcher(rhs) : listMatcher(options.lists?.[rhs.name], type);
}

function predicate(node: Comparison, options: CompileOptions): (value: Runtime) => boolean {
  switch (node.op) {
    case 'in':
      return compileSet(node.rhs, options, node.lhs.type);
    case 'contains': {
      const needle = node.rhs.value;
      return (v) => typeof v === 'string' && v.includes(needle);
    }
    case 'matches': {
      const matches = compileRegexMatcher(node.rhs.pattern);
      return (v) => typeof v === 'string' && matches(binaryToUtf8(v));
    }
    case 'wildcard':
    case 'strict wildcard': {
      const wildcard = compileWildcard(node.rhs.value, node.op === 'strict wildcard');
      return (v) => typeof v === 'string' && wildcard.matches(v);
    }
    case 'bitwise_and': {
      const mask = node.rhs.value;
      return (v) => typeof v === 'bigint' && (v & mask) !== 0n;
    }
    default:
      return ordering(node.op, node.rhs);
  }
}

const ORDERINGS: Readonly<Record<OrderingOp, (order: number) => boolean>> = {
  eq: (o) => o === 0,
  ne: (o) => o !== 0,
  lt: (o) => o < 0,
  le: (o) => o <= 0,
  gt: (o) => o > 0,
  ge: (o) => o >= 0,
};

function ordering(op: OrderingOp, rhs: BytesLiteral | IntLiteral | IpLiteral): (value: Runtime) => boolean {
  if (rhs.kind === 'ip') {
    const address = parseIp(rhs.address);
    if (!address) throw new Error(`unreadable address in a checked tree: ${rhs.address}`);
    // Addresses of different families never compare equal.
    const equal = (v: Runtime) => isIp(v) && v.v6 === address.v6 && v.value === address.value;
    return op === 'ne' ? (v) => !equal(v) : equal;
  }
  const literal = rhs.value;
  const accept = ORDERINGS[op];
  return (v) => {
    if (typeof v !== typeof literal) return false;
    const value = v as typeof literal;
    return accept(value < literal ? -1 : value > literal ? 1 : 0);
  };
}

function combine(values: boolean[][], fold: (a: boolean, b: boolean) => boolean): boolean[] {
  const length = Math.min(...values.map((v) => v.length));
  return Array.from({ length }, (_, i) => values.map((v) => v[i] === true).reduce(fold));
}

const FOLDS = {
  and: (a: boolean, b: boolean) => a && b,
  or: (a: boolean, b: boolean) => a || b,
  xor: (a: boolean, b: boolean) => a !== b,
} as const;

function compileExpression(node: Expression, options: CompileOptions): Compiled<boolean> {
  switch (node.kind) {
    case 'group':
      return compileExpression(node.inner, options);
    case 'not': {
      const operand = compileExpression(node.operand, options);
      return operand.many
        ? { many: true, run: (env) => operand.run(env).map((b) => !b) }
        : { many: false, run: (env) => !operand.run(env) };
    }
    case 'quantifier': {
      const some = node.name === 'any';
      const fold = (values: readonly boolean[]): boolean => (some ? values.some(Boolean) : values.every(Boolean));
      const inner = node.operand;
      if (inner.kind === 'truth' && !inner.value.mapped) {
        // An array of Booleans as such (`all(starts_with(names[*], "x"))`): when it is
        // missing the quantifier is false, even `all`, as in the engine.
        const value = compileValue(inner.value, options);
        if (value.many) throw new Error('an unmapped value compiled as mapped');
        return {
          many: false,
          run: (env) => {
            const values = asArray(value.run(env));
            return values !== undefined && fold(values.map((v) => v === true));
          },
        };
      }
      const operand = compileExpression(inner, options);
      if (!operand.many) throw new Error('a quantifier over a single Boolean passed the checker');
      return { many: false, run: (env) => fold(operand.run(env)) };
    }
    case 'logical': {
      const operands = node.operands.map((o) => compileExpression(o, options));
      const fold = FOLDS[node.op];
      const many = operands.filter((o): o is Many<boolean> => o.many);
      if (many.length === operands.length) return { many: true, run: (env) => combine(many.map((o) => o.run(env)), fold) };
      if (many.length > 0) throw new Error('a logical operator over Bool and Array(Bool) passed the checker');
      const singles = operands.filter((o): o is One<boolean> => !o.many);
      if (node.op === 'and') return { many: false, run: (env) => singles.every((o) => o.run(env)) };
      if (node.op === 'or') return { many: false, run: (env) => singles.some((o) => o.run(env)) };
      return { many: false, run: (env) => singles.reduce((acc, o) => acc !== o.run(env), false) };
    }
    case 'truth':
      return condition(node.value, (v) => v === true, options);
    case 'comparison':
      return condition(node.lhs, predicate(node, options), options);
  }
}

/** The test applied to a value, to each mapped element, or (for an unmapped array of Booleans) to each element. */
function condition(lhs: ValueExpr, test: (value: Runtime) => boolean, options: CompileOptions): Compiled<boolean> {
  const value = compileValue(lhs, options);
  if (value.many) return { many: true, run: (env) => (value.run(env) ?? []).map(test) };
  if (isArray(lhs.type)) return { many: true, run: (env) => elements(value.run(env)).map(test) };
  return {
    many: false,
    run: (env) => {
      const v = value.run(env);
      return v !== undefined && test(v);
    },
  };
}

export function compileFilter(ast: Expression, options: CompileOptions = {}): CompiledFilter {
  const compiled = compileExpression(ast, options);
  if (compiled.many) throw new Error('the expression is not Boolean; only checked trees can be compiled');
  return { evaluate: (context) => compiled.run(context instanceof EvaluationScope ? context : new EvaluationScope(context)) };
}
