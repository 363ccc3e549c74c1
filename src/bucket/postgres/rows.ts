/** Rows of the bucket tables as the engine's records (statements.ts names the columns). */
import type { PartRecord, UploadRecord } from '../engine';
import type { PartColumns, UploadColumns } from './statements';

export { recordFromColumns as toRecord } from '../object-columns';

export function toUpload([uploadId, key, created, httpMetadata, customMetadata, , checksum, encryption]: readonly [
  ...UploadColumns,
  ...unknown[],
]): UploadRecord {
  return {
    uploadId,
    key: key.toString('utf8'),
    created,
    httpMetadata: JSON.parse(httpMetadata),
    customMetadata: JSON.parse(customMetadata),
    ...(checksum ? { checksum: JSON.parse(checksum) } : {}),
    ...(encryption ? { encryption: JSON.parse(encryption) } : {}),
  };
}

export function toPart([partNumber, , size, etag, md5, checksum, iv]: PartColumns): PartRecord {
  const part: PartRecord = { partNumber, size, etag, md5 };
  if (checksum) part.checksum = JSON.parse(checksum);
  if (iv) part.iv = iv;
  return part;
}
