/**
 * Time as the store records it. The real service stamps `last_updated` and friends with
 * microsecond ISO 8601 strings ending in `Z`; Date only carries milliseconds, so clocks
 * here count microseconds since the Unix epoch.
 */
export interface Clock {
  nowMicros(): number;
}

const MICROS_PER_MS = 1000;
const TIMESTAMP_PATTERN = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/;

/** Formats epoch microseconds as `2026-11-21T10:00:00.123456Z`. */
export function formatTimestamp(micros: number): string {
  if (!Number.isSafeInteger(micros) || micros < 0) {
    throw new RangeError(`timestamp must be a non-negative whole number of microseconds, got ${micros}`);
  }
  const millis = Math.floor(micros / MICROS_PER_MS);
  const seconds = new Date(millis).toISOString().slice(0, 19);
  const fraction = String(micros % 1_000_000).padStart(6, '0');
  return `${seconds}.${fraction}Z`;
}

/** Parses an ISO 8601 UTC timestamp (`Z`, up to six fractional digits) into epoch microseconds. */
export function parseTimestamp(text: string): number {
  const match = TIMESTAMP_PATTERN.exec(text);
  const millis = match ? Date.parse(`${match[1]}Z`) : Number.NaN;
  if (!match || Number.isNaN(millis)) {
    throw new RangeError(`not an ISO 8601 UTC timestamp: ${JSON.stringify(text)}`);
  }
  return millis * MICROS_PER_MS + Number((match[2] ?? '').padEnd(6, '0'));
}

/**
 * Wall-clock time with sub-millisecond resolution. `performance.now()` is monotonic and
 * fractional, so adding it to the process's time origin yields real microseconds.
 */
export const systemClock: Clock = {
  nowMicros: () => Math.floor((performance.timeOrigin + performance.now()) * MICROS_PER_MS),
};

/** A clock that always answers the same instant. */
export function fixedClock(timestamp: string): Clock {
  const micros = parseTimestamp(timestamp);
  return { nowMicros: () => micros };
}

/** A clock that starts at `timestamp` and moves forward `stepMicros` on every reading. */
export function steppingClock(timestamp: string, stepMicros = 1): Clock {
  let next = parseTimestamp(timestamp);
  return {
    nowMicros: () => {
      const current = next;
      next += stepMicros;
      return current;
    },
  };
}
