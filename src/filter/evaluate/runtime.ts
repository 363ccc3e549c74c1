/**
 * Values during evaluation: Bytes as binary strings (one character per byte),
 * Int as bigint, Bool, IP addresses as family and number, arrays, and maps.
 * `undefined` is a missing value.
 */
import type { IpValue } from '../literals';

export type Runtime = string | bigint | boolean | IpValue | readonly Runtime[] | ReadonlyMap<string, Runtime>;
export type MaybeValue = Runtime | undefined;

export function isIp(value: MaybeValue): value is IpValue {
  return typeof value === 'object' && !Array.isArray(value) && !(value instanceof Map);
}

export function asBytes(value: MaybeValue): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asInt(value: MaybeValue): bigint | undefined {
  return typeof value === 'bigint' ? value : undefined;
}

export function asArray(value: MaybeValue): readonly Runtime[] | undefined {
  return Array.isArray(value) ? (value as readonly Runtime[]) : undefined;
}

export function asMap(value: MaybeValue): ReadonlyMap<string, Runtime> | undefined {
  return value instanceof Map ? value : undefined;
}

/** Equality of two values of one type (addresses of different families are unequal). */
export function sameValue(a: Runtime, b: Runtime): boolean {
  if (isIp(a) && isIp(b)) return a.v6 === b.v6 && a.value === b.value;
  return a === b;
}
