/**
 * The request context an expression is evaluated against: field name to value.
 *
 * | field type | JavaScript value |
 * |---|---|
 * | Bytes | string (used as its UTF-8 bytes) or Uint8Array |
 * | Int | number (an integer) or bigint |
 * | Bool | boolean |
 * | Ip | string: an IPv4 or IPv6 address |
 * | Array(T) | array of T |
 * | Map(T) | object from key to T (e.g. header name to an array of values) |
 *
 * A field that is absent (or `undefined`) is missing: every comparison on it is
 * false, as in the engine. A value of the wrong shape is a programming error in
 * the caller and raises a FilterContextError naming the field.
 */
import { fromBytes, utf8ToBinary, type FilterType, isArray, typeName } from '../language';
import { parseIp } from '../literals';
import type { Runtime } from './runtime';

export type FieldValue =
  | string
  | number
  | bigint
  | boolean
  | Uint8Array
  | readonly FieldValue[]
  | { readonly [key: string]: FieldValue };

export type RequestContext = { readonly [field: string]: FieldValue | undefined };

export class FilterContextError extends TypeError {
  override readonly name = 'FilterContextError';
}

function mismatch(path: string, type: FilterType, value: unknown): never {
  const got = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
  throw new FilterContextError(`context value ${path} should be ${typeName(type)}, got ${got}`);
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

/** Converts one context value to its runtime form, checking it against the field's type. */
export function toRuntime(value: unknown, type: FilterType, path: string): Runtime {
  if (type === 'Bytes') {
    if (typeof value === 'string') return utf8ToBinary(value);
    if (value instanceof Uint8Array) return fromBytes(value);
  } else if (type === 'Int') {
    if (typeof value === 'bigint') return value;
    if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  } else if (type === 'Bool') {
    if (typeof value === 'boolean') return value;
  } else if (type === 'Ip') {
    if (typeof value === 'string') {
      return parseIp(value) ?? mismatch(path, type, value);
    }
  } else if (isArray(type)) {
    if (Array.isArray(value)) return value.map((item: unknown, i) => toRuntime(item, type.array, `${path}[${i}]`));
  } else if (isRecord(value)) {
    return new Map(Object.entries(value).map(([key, item]) => [key, toRuntime(item, type.map, `${path}[${JSON.stringify(key)}]`)]));
  }
  return mismatch(path, type, value);
}
