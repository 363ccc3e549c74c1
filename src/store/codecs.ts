/** Column codecs shared by the repositories: JSON as TEXT, booleans as 0/1, batched inserts. */
import { RecentMemo } from '../in-place-caches';

export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

/** Freezes a value and everything in it; what the store keeps in memory is frozen, so no caller can change it for the next. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Encodings kept: far more than the frozen values one request encodes (see RecentMemo on why few). */
const frozenTexts = new RecentMemo<string>(16);

/**
 * JSON of a value, kept for a recent frozen object (which cannot change): a write's version
 * snapshot and the server's answer to that write encode the same frozen ruleset once between them.
 */
export function frozenJson(value: unknown): string {
  if (value === null || typeof value !== 'object' || !Object.isFrozen(value)) return JSON.stringify(value);
  let text = frozenTexts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    frozenTexts.set(value, text);
  }
  return text;
}

/** JSON with object keys sorted at every depth: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) =>
    member !== null && typeof member === 'object' && !Array.isArray(member)
      ? Object.fromEntries(Object.entries(member).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : member,
  );
}

export function fromJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

export function fromJsonOrNull<T>(text: string | null): T | null {
  return text === null ? null : fromJson<T>(text);
}

export function toFlag(value: boolean): number {
  return value ? 1 : 0;
}

export function fromFlag(value: number): boolean {
  return value !== 0;
}

/** Counts come back as numbers from SQLite and as bigint strings from PostgreSQL. */
export function toCount(value: string | number | bigint): number {
  return Number(value);
}

/** Rows per INSERT: far below both engines' bound-parameter limits for our widest table. */
const INSERT_BATCH = 100;

export function inBatches<T>(rows: readonly T[]): T[][] {
  const batches: T[][] = [];
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    batches.push(rows.slice(start, start + INSERT_BATCH));
  }
  return batches;
}
