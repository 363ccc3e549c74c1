import { type BucketAction, describe, DEFAULT_MIN_PART_BYTES, MAX_PUT_BYTES } from '../shared';
import { defaultLifecycle, type LifecycleSource } from './lifecycle';

/** Options of a bucket runtime. */
export interface RuntimeOptions {
  /**
   * The worker's compatibility date (`YYYY-MM-DD`). From 2022-08-04 `list` honours `include`;
   * before, listed objects always carry both metadata kinds. From 2025-12-03 a `range` object
   * carries `suffix: undefined` too. Without a date the runtime behaves as for a current worker.
   * (docs/buckets-and-workers.md's "Compatibility dates" table lists these in one place.)
   */
  compatibilityDate?: string;
  /**
   * The worker's compatibility flags: `r2_list_honor_include` makes `list` honour `include`;
   * `enable_fast_jsg_struct` / `disable_fast_jsg_struct` decide the shape of `range` objects.
   */
  compatibilityFlags?: string[];
  /** Smallest non-final multipart part in bytes; 5 MiB unless tests want small parts. */
  minimumPartSize?: number;
  /** Current time in epoch milliseconds: upload times and the lifecycle's expiry of uploads and objects. */
  clock?: () => number;
  /**
   * The bucket's lifecycle rules, read when they apply: unfinished multipart uploads are
   * aborted at the age they give, and objects they expire are deleted. Without it, the
   * platform's default rule (uploads aborted after 7 days).
   */
  lifecycle?: LifecycleSource;
}

/** Runtime options, checked and completed. */
export interface RuntimeSettings {
  honourInclude: boolean;
  /** Whether a reported `range` carries all three fields, `suffix: undefined` included. */
  rangeHasEveryField: boolean;
  minimumPartSize: number;
  clock: () => number;
  lifecycle: LifecycleSource;
}

const HONOUR_INCLUDE_SINCE = '2022-08-04';
const HONOUR_INCLUDE_FLAG = 'r2_list_honor_include';
const FAST_STRUCT_SINCE = '2025-12-03';

/** A behaviour that a date turns on, unless a flag says otherwise either way. */
function enabled(date: string | undefined, since: string, flags: string[], enableFlag: string, disableFlag?: string): boolean {
  if (disableFlag !== undefined && flags.includes(disableFlag)) return false;
  return (date ?? since) >= since || flags.includes(enableFlag);
}

export function runtimeSettings(options: RuntimeOptions = {}): RuntimeSettings {
  const { compatibilityDate, compatibilityFlags = [], minimumPartSize = DEFAULT_MIN_PART_BYTES, clock = Date.now, lifecycle = defaultLifecycle } = options;
  if (compatibilityDate !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(compatibilityDate)) {
    throw new TypeError(`compatibilityDate must be written YYYY-MM-DD, not ${String(compatibilityDate)}.`);
  }
  if (!Array.isArray(compatibilityFlags) || compatibilityFlags.some((flag) => typeof flag !== 'string')) {
    throw new TypeError('compatibilityFlags must be an array of strings.');
  }
  if (!Number.isInteger(minimumPartSize) || minimumPartSize < 1 || minimumPartSize > MAX_PUT_BYTES) {
    throw new RangeError(`minimumPartSize must be a whole number of bytes from 1 to ${MAX_PUT_BYTES}, not ${minimumPartSize}.`);
  }
  if (typeof clock !== 'function') throw new TypeError('clock must be a function returning epoch milliseconds.');
  if (typeof lifecycle !== 'function') throw new TypeError('lifecycle must be a function answering the lifecycle rules.');
  return {
    honourInclude: enabled(compatibilityDate, HONOUR_INCLUDE_SINCE, compatibilityFlags, HONOUR_INCLUDE_FLAG),
    rangeHasEveryField: enabled(
      compatibilityDate,
      FAST_STRUCT_SINCE,
      compatibilityFlags,
      'enable_fast_jsg_struct',
      'disable_fast_jsg_struct',
    ),
    minimumPartSize,
    clock,
    lifecycle,
  };
}

export function requireOptions(options: unknown, action: BucketAction): Record<string, unknown> {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') throw new TypeError(`${action} options must be an object, not ${describe(options)}.`);
  return options as Record<string, unknown>;
}

export function requireStorageClass(value: unknown): void {
  if (value !== undefined && value !== 'Standard') {
    throw new TypeError(`storageClass must be "Standard", the only storage class here, not ${String(value)}.`);
  }
}
