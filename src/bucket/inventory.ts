/**
 * What a bucket's owner may see beyond the binding: the multipart uploads in progress and their
 * parts. Workers have no such calls on the platform (its S3-compatible interface has them), so
 * they are not part of the binding contract; a second front door such as the S3 endpoint uses
 * them.
 */
import type { HttpMetadata } from './contract';
import type { ChecksumAlgorithm, UploadChecksum } from './flexible-checksums';

/** An upload in progress. */
export interface UploadInProgress {
  readonly key: string;
  readonly uploadId: string;
  readonly initiated: Date;
  readonly httpMetadata: HttpMetadata;
  readonly customMetadata: Record<string, string>;
  /** The S3 checksum the upload was created with. */
  readonly checksum?: UploadChecksum;
  /** The base64 MD5 of the customer key the upload was created with, if any. */
  readonly ssecKeyMd5?: string;
}

/** A part stored for an upload in progress. */
export interface StoredPart {
  readonly partNumber: number;
  /** The etag `complete` expects for this part. */
  readonly etag: string;
  /** Bytes. */
  readonly size: number;
  /** MD5 of the part's bytes, hex; for a part of an encrypted upload, its etag (a keyed digest). */
  readonly md5: string;
  /** The S3 checksum the part was uploaded with, base64. */
  readonly checksum?: { algorithm: ChecksumAlgorithm; value: string };
}

export interface UploadInventory {
  /**
   * The uploads in progress whose keys start with `prefix` (every one when absent), by key in
   * UTF-8 byte order, then by creation time. Expired uploads are aborted first.
   */
  listMultipartUploads(options?: { prefix?: string }): Promise<UploadInProgress[]>;
  /**
   * The upload with its stored parts, by part number. Error 10024 when the upload does not
   * exist, was aborted or completed.
   */
  listParts(key: string, uploadId: string): Promise<{ upload: UploadInProgress; parts: StoredPart[] }>;
}
