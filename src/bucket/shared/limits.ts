/** Limits the edge platform enforces on a bucket, mirrored by the runtime. */

const MiB = 1024 * 1024;

/** Longest key, in bytes of UTF-8. */
export const MAX_KEY_BYTES = 1024;
/** Custom metadata: keys plus values, in bytes of UTF-8. */
export const MAX_CUSTOM_METADATA_BYTES = 8192;
/** Default and maximum entries of one list page. */
export const MAX_LIST_LIMIT = 1000;
/** Largest single put, and largest part. */
export const MAX_PUT_BYTES = 5 * 1024 * MiB - 5 * MiB;
/** Part numbers run from 1 to this. */
export const MAX_PART_NUMBER = 10_000;
/** Smallest non-final part, unless the runtime is configured otherwise. */
export const DEFAULT_MIN_PART_BYTES = 5 * MiB;
/**
 * Cap on the keys plus included metadata returned by one list call: a page may therefore hold
 * fewer entries than its limit, as the platform's pages do.
 */
export const MAX_LIST_PAGE_BYTES = 1 * MiB;
