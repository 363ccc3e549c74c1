/**
 * Value types of the rules language, as the engine names them: scalars
 * `Bytes`, `Int`, `Bool`, `Ip`, and the containers `Array(T)` and `Map(T)`.
 */
export type ScalarType = 'Bytes' | 'Int' | 'Bool' | 'Ip';
export type FilterType = ScalarType | { readonly array: FilterType } | { readonly map: FilterType };

export const BOOL_ARRAY: FilterType = { array: 'Bool' };

export function isArray(t: FilterType): t is { readonly array: FilterType } {
  return typeof t === 'object' && 'array' in t;
}

export function isMap(t: FilterType): t is { readonly map: FilterType } {
  return typeof t === 'object' && 'map' in t;
}

/** The element type of an array or the value type of a map; undefined for scalars. */
export function elementType(t: FilterType): FilterType | undefined {
  if (isArray(t)) return t.array;
  if (isMap(t)) return t.map;
  return undefined;
}

export function sameType(a: FilterType, b: FilterType): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (isArray(a)) return isArray(b) && sameType(a.array, b.array);
  return isMap(b) && sameType((a as { map: FilterType }).map, b.map);
}

/** The engine's spelling of a type in messages: `Array(Bytes)`, `Map(Array(Int))`. */
export function typeName(t: FilterType): string {
  if (typeof t === 'string') return t;
  if (isArray(t)) return `Array(${typeName(t.array)})`;
  return `Map(${typeName(t.map)})`;
}

/** `Array<T>` and `Map<T>` around a scalar named by `scalars`; throws on anything else. */
function parseTypeText(text: string, scalars: Readonly<Record<string, ScalarType>>, vocabulary: string): FilterType {
  const scalar = scalars[text];
  if (scalar) return scalar;
  const container = /^(Array|Map)<(.+)>$/.exec(text);
  if (container?.[1] && container[2]) {
    const inner = parseTypeText(container[2], scalars, vocabulary);
    return container[1] === 'Array' ? { array: inner } : { map: inner };
  }
  // The catalogue is data we ship, so a bad entry is a build defect, not user input.
  throw new Error(`unknown ${vocabulary} type in the scheme catalogue: ${text}`);
}

/** An engine type as the catalogue writes it: `Bytes`, `Array<Int>`, `Map<Array<Bytes>>`. */
export function parseEngineType(text: string): FilterType {
  return parseTypeText(text, { Bytes: 'Bytes', Int: 'Int', Bool: 'Bool', Ip: 'Ip' }, 'engine');
}

/** A documented type name: `String`, `Integer`, `IP address`, `Array<Boolean>`... */
export function parseDocType(text: string): FilterType {
  const names = { String: 'Bytes', Bytes: 'Bytes', Integer: 'Int', Boolean: 'Bool', 'IP address': 'Ip' } as const;
  return parseTypeText(text, names, 'documented');
}
