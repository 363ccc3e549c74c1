/**
 * Listing: a bucket's objects page by page, and the multipart uploads in progress with their
 * parts.
 */
export * from './inventory';
export * from './list';
