/**
 * The scheme: which fields exist with which types, and which functions with
 * which signatures. Everything here is read from `scheme.json` (the catalogue
 * gathered from the platform's documentation); nothing is retyped by hand.
 */
import catalogue from './scheme.json' with { type: 'json' };
import {
  type FilterType,
  elementType,
  isArray,
  isMap,
  parseDocType,
  parseEngineType,
  sameType,
  typeName,
} from './types';

export interface FieldInfo {
  readonly name: string;
  readonly type: FilterType;
  /** The platform's documentation vocabulary (`String`, `IP address`...). */
  readonly documentedType: string;
  readonly deprecated: boolean;
}

/** `field`: anything but a literal; `literal`: a literal only; `any`: either. */
export type ArgKind = 'field' | 'literal' | 'any';

/** A check of one argument's type; `previous` holds the types of the arguments before it. */
export interface ArgTypeRule {
  describe(previous: readonly FilterType[]): string;
  accepts(type: FilterType, previous: readonly FilterType[]): boolean;
}

export interface ParamInfo {
  readonly name: string;
  readonly kind: ArgKind;
  readonly type: ArgTypeRule;
  /** Inclusive bounds for an integer literal. */
  readonly range?: readonly [number, number];
}

export interface FunctionInfo {
  readonly name: string;
  readonly params: readonly ParamInfo[];
  readonly minArgs: number;
  /** `undefined`: no upper bound. */
  readonly maxArgs: number | undefined;
  returnType(argTypes: readonly FilterType[]): FilterType;
}

interface RawArg {
  name: string;
  type: string;
  kind: string;
  range?: number[];
}

function exact(type: FilterType): ArgTypeRule {
  return { describe: () => typeName(type), accepts: (t) => sameType(t, type) };
}

function union(rules: readonly ArgTypeRule[]): ArgTypeRule {
  return {
    describe: (previous) => rules.map((r) => r.describe(previous)).join(' or '),
    accepts: (t, previous) => rules.some((r) => r.accepts(t, previous)),
  };
}

const firstElement = (previous: readonly FilterType[]): FilterType | undefined =>
  previous[0] === undefined ? undefined : elementType(previous[0]);

/** Generic parts of the catalogue's type vocabulary, beyond plain type names. */
const GENERIC_RULES: Record<string, ArgTypeRule> = {
  Array: { describe: () => 'Array', accepts: (t) => isArray(t) },
  'Map<_>': { describe: () => 'Map', accepts: (t) => isMap(t) },
  'Map<T>': { describe: () => 'Map', accepts: (t) => isMap(t) },
  'Array<T>': { describe: () => 'Array', accepts: (t) => isArray(t) },
  T: {
    describe: (previous) => {
      const element = firstElement(previous);
      return element === undefined ? 'the element type of argument #0' : typeName(element);
    },
    accepts: (t, previous) => {
      const element = firstElement(previous);
      return element !== undefined && sameType(t, element);
    },
  },
  'same type as first': {
    describe: (previous) => (previous[0] === undefined ? 'the type of argument #0' : typeName(previous[0])),
    accepts: (t, previous) => previous[0] !== undefined && sameType(t, previous[0]),
  },
};

function argTypeRule(text: string): ArgTypeRule {
  const parts = text.split(' | ');
  const rules = parts.map((part) => GENERIC_RULES[part] ?? exact(parseDocType(part)));
  return rules.length === 1 && rules[0] ? rules[0] : union(rules);
}

function argKind(text: string): ArgKind {
  if (text === 'field' || text === 'literal' || text === 'any') return text;
  throw new Error(`unknown argument kind in the scheme catalogue: ${text}`);
}

function returnRule(text: string): (argTypes: readonly FilterType[]) => FilterType {
  if (text.startsWith('type of first argument')) {
    return (argTypes) => argTypes[0] ?? 'Bytes';
  }
  const type = parseDocType(text);
  return () => type;
}

function toParam(raw: RawArg): ParamInfo {
  const [low, high] = raw.range ?? [];
  return {
    name: raw.name,
    kind: argKind(raw.kind),
    type: argTypeRule(raw.type),
    ...(low !== undefined && high !== undefined ? { range: [low, high] as const } : {}),
  };
}

export const FIELDS: ReadonlyMap<string, FieldInfo> = new Map(
  catalogue.fields.map((f) => [
    f.name,
    {
      name: f.name,
      type: parseEngineType(f.engineType),
      documentedType: f.type,
      deprecated: 'deprecated' in f && f.deprecated === true,
    },
  ]),
);

export const FUNCTIONS: ReadonlyMap<string, FunctionInfo> = new Map(
  catalogue.functions.map((f) => [
    f.name,
    {
      name: f.name,
      params: f.args.map(toParam),
      minArgs: f.minArgs,
      maxArgs: f.maxArgs ?? undefined,
      returnType: returnRule(f.returns),
    },
  ]),
);

/** The parameter that argument `index` binds to (the last one repeats when variadic). */
export function paramAt(fn: FunctionInfo, index: number): ParamInfo | undefined {
  return fn.params[index] ?? (fn.maxArgs === undefined ? fn.params[fn.params.length - 1] : undefined);
}
