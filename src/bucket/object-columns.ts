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
  encryption: string | null,
];

/** The record of a row whose first columns are an object's metadata. */
export function recordFromColumns([key, version, size, etag, uploaded, httpMetadata, customMetadata, checksums, encryption]: readonly [
  ...ObjectColumns,
  ...unknown[],
]): ObjectRecord {
  const record: ObjectRecord = {
    key: key.toString('utf8'),
    version,
    size,
    etag,
    uploaded,
    httpMetadata: parseObject(httpMetadata),
    customMetadata: parseObject(customMetadata),
    checksums: JSON.parse(checksums),
  };
  if (encryption !== null) record.encryption = JSON.parse(encryption);
  return record;
}

/** Most objects have no metadata: `{}` is not parsed. */
const parseObject = (text: string) => (text === '{}' ? {} : JSON.parse(text));

/** The `encryption` column of a record: JSON, or null for an object stored plain. */
export const encryptionColumn = (record: { encryption?: object }): string | null =>
  record.encryption ? JSON.stringify(record.encryption) : null;
