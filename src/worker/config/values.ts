/** Helpers to say what a parsed configuration value is, for checks and their messages. */

export type Table = Record<string, unknown>;

export function isTable(value: unknown): value is Table {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** "a number (3)", "an array", ... for messages about a value of the wrong type. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof Date) return 'a TOML date';
  if (Array.isArray(value)) return 'an array';
  if (isTable(value)) return 'a table';
  if (typeof value === 'string') return `a string (${JSON.stringify(value)})`;
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} (${String(value)})`;
}

/** Joins a key path the way the problem messages show it: `r2_buckets[1].binding`, `vars["a b"]`. */
export function keyPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  const segment = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  if (parent === '') return segment;
  return segment.startsWith('"') ? `${parent}[${segment}]` : `${parent}.${segment}`;
}
