/**
 * An object's metadata as both stored engines read it back: one row as an array, in this order
 * (arrays are faster to read than objects), with the metadata as JSON text.
 */
import type { ObjectRecord } from './engine';

export type ObjectColumns = [
  key: Buffer,
  version: string,
  size: number,
  etag: string,
  uploaded: number,
  httpMetadata: string,
  customMetadata: string,
  checksums: string,
];

/** The record of a row whose first columns are an object's metadata. */
export function recordFromColumns([key, version, size, etag, uploaded, httpMetadata, customMetadata, checksums]: readonly [
  ...ObjectColumns,
  ...unknown[],
]): ObjectRecord {
  return {
    key: key.toString('utf8'),
    version,
    size,
    etag,
    uploaded,
    httpMetadata: JSON.parse(httpMetadata),
    customMetadata: JSON.parse(customMetadata),
    checksums: JSON.parse(checksums),
  };
}
