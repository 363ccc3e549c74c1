/** Rows of the bucket tables as the engine's records (statements.ts names the columns). */
import type { ObjectRecord, PartRecord, UploadRecord } from '../engine';
import type { ObjectColumns, PartColumns, UploadColumns } from './statements';

export function toRecord([key, version, size, etag, uploaded, httpMetadata, customMetadata, checksums]: readonly [
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

export function toUpload([uploadId, key, created, httpMetadata, customMetadata]: readonly [...UploadColumns, ...unknown[]]): UploadRecord {
  return {
    uploadId,
    key: key.toString('utf8'),
    created,
    httpMetadata: JSON.parse(httpMetadata),
    customMetadata: JSON.parse(customMetadata),
  };
}

export const toPart = ([partNumber, , size, etag, md5]: PartColumns): PartRecord => ({ partNumber, size, etag, md5 });
