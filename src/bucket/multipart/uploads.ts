import { createHash } from 'node:crypto';
import {
  byteSource,
  conditionHolds,
  parseCondition,
  checkBeforeReceiving,
  receiving,
  StoredObjectResult,
} from '../objects';
import type { MultipartOptions, MultipartUpload, StoredObject, UploadedPart, UploadPartOptions } from '../contract';
import { newCustomerKey, parseCustomerKey, requireMatchingKey, SegmentSealer } from '../customer-keys';
import type { ObjectRecord, PartRecord, RecordChecksums, StorageEngine, UploadRecord } from '../engine';
import {
  checkNamedPartChecksums,
  multipartChecksum,
  requirePartChecksums,
  newDigest,
  type ChecksumAlgorithm,
  type ChecksumClaim,
  type UploadChecksum,
} from '../checksums';
import type { CompleteOptions } from '../owner-calls';
import {
  ChecksumRuleError,
  noSuchUpload,
  storing,
  storingEach,
  unknownUpload,
  newUploadId,
  newVersion,
  describe,
  requireKey,
  parseCustomMetadata,
  parseHttpMetadata,
  toHttpMetadata,
} from '../shared';
import type { StoredPart, UploadInProgress } from '../listing';
import { lifecyclePolicy, requireOptions, requireStorageClass, type RuntimeSettings } from '../settings';
import { assembleParts, requirePartNumber, requireUploadedParts } from './multipart';

/** Multipart uploads: creation, parts, completion and abort, with the lifecycle's expiry (7 days by default). */
export class UploadOperations {
  constructor(
    private readonly engine: StorageEngine,
    private readonly settings: RuntimeSettings,
  ) {}

  async create(key: unknown, options: unknown, checksum?: UploadChecksum): Promise<MultipartUpload> {
    const k = requireKey(key, 'createMultipartUpload');
    const o = requireOptions(options, 'createMultipartUpload') as MultipartOptions;
    const httpMetadata = parseHttpMetadata(o.httpMetadata);
    const customMetadata = parseCustomMetadata(o.customMetadata, 'createMultipartUpload');
    requireStorageClass(o.storageClass);
    const customerKey = parseCustomerKey(o.ssecKey);
    await this.expire();
    const uploadId = newUploadId();
    const upload: UploadRecord = { uploadId, key: k, created: this.settings.clock(), httpMetadata, customMetadata };
    if (checksum) upload.checksum = { algorithm: checksum.algorithm, type: checksum.type };
    if (customerKey) upload.encryption = newCustomerKey(customerKey).check;
    await storing('createMultipartUpload', () => this.engine.createUpload(upload));
    return new UploadHandle(this, k, uploadId);
  }

  /** A handle on an upload that may or may not exist: the next call finds out. */
  resume(key: string, uploadId: string): MultipartUpload {
    return new UploadHandle(this, key, uploadId);
  }

  /**
   * Stores a part. A part of an upload created with an S3 checksum algorithm keeps a checksum of
   * that algorithm: the one the client sent (verified by the caller), else one computed here over
   * the bytes, as S3 computes it; a client's checksum of another algorithm is refused.
   */
  async uploadPart(
    key: string,
    uploadId: string,
    partNumber: unknown,
    value: unknown,
    checksum?: ChecksumClaim,
    options?: UploadPartOptions,
  ): Promise<UploadedPart & { checksum?: { algorithm: ChecksumAlgorithm; value: string } }> {
    const number = requirePartNumber(partNumber);
    const source = byteSource(value, false);
    const k = requireKey(key, 'uploadPart');
    const customerKey = parseCustomerKey(requireOptions(options, 'uploadPart').ssecKey);
    await this.expire();
    let wanted: UploadChecksum | undefined;
    let sealer: SegmentSealer | undefined;
    const active = async () => {
      const status = await this.engine.uploadStatus(uploadId, k);
      wanted = status?.checksum;
      // The part's key is the upload's, checked before a byte of it is read.
      if (status?.state === 'active') {
        const keys = requireMatchingKey(status.encryption, customerKey, 'uploadPart', 'upload');
        if (keys) sealer = new SegmentSealer(keys);
      }
      if (wanted && checksum?.value && checksum.algorithm !== wanted.algorithm) {
        throw new ChecksumRuleError(
          'mismatch',
          `Checksum Type mismatch occurred, expected checksum Type: ${wanted.algorithm}, actual checksum Type: ${checksum.algorithm}`,
        );
      }
      return status?.state === 'active';
    };
    if (!(await checkBeforeReceiving(source, 'uploadPart', active))) throw noSuchUpload('uploadPart');
    const claim = checksum?.value ? checksum : wanted && { algorithm: wanted.algorithm };
    const digest = claim && !claim.value ? newDigest(claim.algorithm) : undefined;
    const incoming = receiving(source, undefined, 'uploadPart', digest, sealer);
    const partOf = (size: number): PartRecord => {
      const { md5: plainMd5 } = incoming.finish();
      // The platform's part etag is the MD5 of the part (since June 2023), as S3's is; an
      // encrypted part's is a keyed digest instead (see SegmentSealer.etag).
      const md5 = sealer ? sealer.etag() : plainMd5!;
      const part: PartRecord = { partNumber: number, size, etag: md5, md5 };
      if (sealer) part.iv = sealer.iv.toString('base64');
      const kept = digest ? digest.base64() : claim?.value?.();
      if (kept !== undefined) part.checksum = { algorithm: claim!.algorithm, value: kept };
      return part;
    };
    const part = await storing('uploadPart', () => this.engine.putPart(uploadId, k, incoming.body, partOf));
    if (part === null) throw noSuchUpload('uploadPart');
    return { partNumber: number, etag: part.etag, ...(part.checksum ? { checksum: { ...part.checksum } } : {}) };
  }

  async complete(key: string, uploadId: string, uploadedParts: unknown): Promise<StoredObject> {
    return (await this.completeWith(key, uploadId, uploadedParts, {}))!;
  }

  /**
   * `complete`, with what the platform's S3 interface adds: `onlyIf` is checked against the object
   * the upload would replace, at commit (null when it fails: nothing changes, the upload stays
   * open); with `repeatable`, completing a completed upload again with the same parts answers the
   * object it made while that object is still the key's (S3 clients retry a completion whose answer
   * was lost).
   */
  async completeWith(
    key: string,
    uploadId: string,
    uploadedParts: unknown,
    options: CompleteOptions,
  ): Promise<StoredObject | null> {
    const named = requireUploadedParts(uploadedParts);
    const k = requireKey(key, 'completeMultipartUpload');
    const condition = parseCondition(options.onlyIf);
    const customerKey = options.ssecKey === null ? null : parseCustomerKey(options.ssecKey);
    await this.expire();
    // A bucket with an active upload is never deleted; should the engine find its storage gone all the same, that is 10006.
    const record = await storing('completeMultipartUpload', () => this.engine.completeUpload(uploadId, k, (upload, stored, current) => {
      if (!upload) throw unknownUpload('completeMultipartUpload');
      // A key named must be the upload's; S3 needs it for an upload with a checksum algorithm.
      if (customerKey) requireMatchingKey(upload.encryption, customerKey, 'completeMultipartUpload', 'upload');
      else if (customerKey === null && upload.encryption && upload.checksum) {
        requireMatchingKey(upload.encryption, undefined, 'completeMultipartUpload', 'upload');
      }
      if (upload.state === 'completed' && options.repeatable && current && sameAssembly(current, named)) {
        return { kept: current };
      }
      if (upload.state !== 'active') throw noSuchUpload('completeMultipartUpload');
      const assembly = assembleParts(named, stored, this.settings.minimumPartSize);
      if (options.objectSize !== undefined && options.objectSize !== assembly.size) {
        throw new ChecksumRuleError(
          'size',
          `The object size the request names (x-amz-mp-object-size: ${options.objectSize}) is not the size of the parts named: ${assembly.size} bytes.`,
        );
      }
      if (condition && !conditionHolds(condition, current)) return null;
      checkNamedPartChecksums(upload.checksum, assembly.parts, options.partChecksums);
      const checksums: RecordChecksums = {};
      if (upload.checksum) checksums.flexible = multipartChecksum(
          upload.checksum,
          assembly.parts,
          options.checksums?.[upload.checksum.algorithm],
        );
      requirePartChecksums(upload.checksum, assembly.parts, options.partChecksums);
      const assembled: ObjectRecord = {
        key: k,
        version: newVersion(),
        size: assembly.size,
        etag: assembly.etag,
        uploaded: this.settings.clock(),
        httpMetadata: upload.httpMetadata,
        customMetadata: upload.customMetadata,
        checksums,
      };
      // Every part of an encrypted upload was stored encrypted (its key checked), with its own IV.
      if (upload.encryption) assembled.encryption = { ...upload.encryption, ivs: assembly.parts.map((part) => part.iv!) };
      return { record: assembled, partNumbers: assembly.parts.map((part) => part.partNumber) };
    }));
    return record && new StoredObjectResult(record, record);
  }

  async abort(key: string, uploadId: string): Promise<void> {
    const k = requireKey(key, 'abortMultipartUpload');
    await this.expire();
    if ((await this.engine.abortUpload(uploadId, k)) === 'unknown') throw unknownUpload('abortMultipartUpload');
  }

  async inProgress(options: unknown): Promise<UploadInProgress[]> {
    const o = requireOptions(options, 'listMultipartUploads');
    if (o.prefix !== undefined && typeof o.prefix !== 'string') {
      throw new TypeError(`listMultipartUploads: the prefix must be a string, not ${describe(o.prefix)}.`);
    }
    await this.expire();
    return (await this.engine.activeUploads(o.prefix ?? '')).map(toUploadInProgress);
  }

  async parts(key: unknown, uploadId: unknown): Promise<{ upload: UploadInProgress; parts: StoredPart[] }> {
    const k = requireKey(key, 'listParts');
    if (typeof uploadId !== 'string') {
      throw new TypeError(`listParts: the upload id must be a string, not ${describe(uploadId)}.`);
    }
    await this.expire();
    const found = await this.engine.uploadParts(uploadId, k);
    if (!found) throw noSuchUpload('listParts');
    return {
      upload: toUploadInProgress(found.upload),
      parts: found.parts.map(({ partNumber, etag, size, md5, checksum }) => ({
        partNumber,
        etag,
        size,
        md5,
        ...(checksum ? { checksum: { ...checksum } } : {}),
      })),
    };
  }

  /** Aborts the uploads older than the bucket's lifecycle rules allow, before anything else. */
  private async expire(): Promise<void> {
    const policy = lifecyclePolicy(await this.settings.lifecycle());
    const now = this.settings.clock();
    if (policy.uniformAbortAgeMs !== undefined) return this.engine.expireUploads(now - policy.uniformAbortAgeMs);
    if (!policy.abortsUploads) return;
    // Ages differ by prefix: each upload against the rules that match its key.
    for (const upload of await this.engine.activeUploads('')) {
      const age = policy.abortAgeMs(upload.key);
      if (age !== undefined && upload.created <= now - age) await this.engine.abortUpload(upload.uploadId, upload.key);
    }
  }
}

/**
 * Whether `object` is what completing with `named` makes: part etags are the parts' MD5s, so the
 * object's etag follows from them.
 */
function sameAssembly(object: ObjectRecord, named: UploadedPart[]): boolean {
  const ordered = [...named].sort((a, b) => a.partNumber - b.partNumber);
  if (!ordered.every((part) => /^[0-9a-f]{32}$/.test(part.etag))) return false;
  const md5s = createHash('md5');
  for (const part of ordered) md5s.update(Buffer.from(part.etag, 'hex'));
  return object.etag === `${md5s.digest('hex')}-${ordered.length}`;
}

function toUploadInProgress(upload: UploadRecord): UploadInProgress {
  return {
    key: upload.key,
    uploadId: upload.uploadId,
    initiated: new Date(upload.created),
    httpMetadata: toHttpMetadata(upload.httpMetadata),
    customMetadata: { ...upload.customMetadata },
    ...(upload.checksum ? { checksum: { ...upload.checksum } } : {}),
    ...(upload.encryption ? { ssecKeyMd5: upload.encryption.keyMd5 } : {}),
  };
}

class UploadHandle implements MultipartUpload {
  readonly #uploads: UploadOperations;

  constructor(
    uploads: UploadOperations,
    readonly key: string,
    readonly uploadId: string,
  ) {
    this.#uploads = uploads;
  }

  async uploadPart(partNumber: number, value: unknown, options?: UploadPartOptions): Promise<UploadedPart> {
    // The binding's answer is the part number and etag alone.
    const { etag } = await this.#uploads.uploadPart(this.key, this.uploadId, partNumber, value, undefined, options);
    return { partNumber: requirePartNumber(partNumber), etag };
  }

  abort(): Promise<void> {
    return this.#uploads.abort(this.key, this.uploadId);
  }

  complete(uploadedParts: UploadedPart[]): Promise<StoredObject> {
    return this.#uploads.complete(this.key, this.uploadId, uploadedParts);
  }
}

storingEach(UploadOperations, {
  create: 'createMultipartUpload',
  uploadPart: 'uploadPart',
  complete: 'completeMultipartUpload',
  completeWith: 'completeMultipartUpload',
  abort: 'abortMultipartUpload',
  inProgress: 'listMultipartUploads',
  parts: 'listParts',
});
