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

/**
 * Reads an engine type as the catalogue writes it (`Bytes`, `Array<Int>`,
 * `Map<Array<Bytes>>`). Throws on anything else: the catalogue is data we ship,
 * so a bad entry is a build defect, not user input.
 */
export function parseEngineType(text: string): FilterType {
  const scalar = ['Bytes', 'Int', 'Bool', 'Ip'] as const;
  const found = scalar.find((s) => s === text);
  if (found) return found;
  const container = /^(Array|Map)<(.+)>$/.exec(text);
  if (container?.[1] && container[2]) {
    const inner = parseEngineType(container[2]);
    return container[1] === 'Array' ? { array: inner } : { map: inner };
  }
  throw new Error(`unknown engine type in the scheme catalogue: ${text}`);
}

/** Reads a documented type name (`String`, `Integer`, `IP address`, `Array<Boolean>`...). */
export function parseDocType(text: string): FilterType {
  const names: Record<string, ScalarType> = {
    String: 'Bytes',
    Bytes: 'Bytes',
    Integer: 'Int',
    Boolean: 'Bool',
    'IP address': 'Ip',
  };
  const scalar = names[text];
  if (scalar) return scalar;
  const container = /^(Array|Map)<(.+)>$/.exec(text);
  if (container?.[1] && container[2]) {
    const inner = parseDocType(container[2]);
    return container[1] === 'Array' ? { array: inner } : { map: inner };
  }
  throw new Error(`unknown documented type in the scheme catalogue: ${text}`);
}
