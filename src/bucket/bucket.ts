import type { KeyObject } from 'node:crypto';
import {
  byteSource,
  type ByteSource,
  parseExpectedHash,
  StoredChecksums,
  conditionHolds,
  parseCondition,
  checkBeforeReceiving,
  receiving,
  StoredObjectBodyResult,
  StoredObjectResult,
} from './objects';
import {
  newCustomerKey,
  parseCustomerKey,
  requireMatchingKey,
  openBytes,
  SegmentSealer,
  segmentsOf,
  type CipherSegment,
} from './customer-keys';
import type {
  Bucket,
  GetOptions,
  ListOptions,
  ListResult,
  MultipartOptions,
  MultipartUpload,
  Precondition,
  PutOptions,
  PutValue,
  Range,
  CustomerKey,
  UploadPartOptions,
  StoredObject,
  StoredObjectBody,
  UploadedPart,
} from './contract';
import type { ObjectBytes, ObjectRecord, StorageEngine } from './engine';
import { newDigest, type ChecksumClaim, type FlexibleChecksum, type UploadChecksum } from './checksums';
import {
  newVersion,
  describe,
  requireKey,
  noSuchPart,
  storing,
  storingEach,
  parseCustomMetadata,
  parseHttpMetadata,
  parseRange,
  reportedRange,
  resolveRange,
  type ByteRange,
} from './shared';
import { type StoredPart, type UploadInProgress, buildPage, emptyPage, parseListOptions } from './listing';
import { requirePartNumber, UploadOperations } from './multipart';
import { ObjectExpiry, requireOptions, requireStorageClass, type RuntimeSettings } from './settings';
import type { CompleteOptions, ObjectAttributes, OwnerCalls, PartRead } from './owner-calls';

/** The bucket binding over a storage engine: the contract's rules live here, storage in the engine. */
export class BucketRuntime implements Bucket, OwnerCalls {
  readonly #engine: StorageEngine;
  readonly #settings: RuntimeSettings;
  readonly #uploads: UploadOperations;
  readonly #expiry: ObjectExpiry;

  constructor(engine: StorageEngine, settings: RuntimeSettings) {
    this.#engine = engine;
    this.#settings = settings;
    this.#uploads = new UploadOperations(engine, settings);
    this.#expiry = new ObjectExpiry(engine, settings);
  }

  async head(key: string): Promise<StoredObject | null> {
    const k = requireKey(key, 'head');
    await this.#expiry.sweepIfDue();
    const record = await this.#engine.head(k);
    return record && new StoredObjectResult(record, { ...record, range: this.#whole(record) });
  }

  get(key: string, options: GetOptions & { onlyIf: Precondition }): Promise<StoredObjectBody | StoredObject | null>;
  get(key: string, options?: GetOptions): Promise<StoredObjectBody | null>;
  async get(key: string, options?: GetOptions): Promise<StoredObjectBody | StoredObject | null> {
    const k = requireKey(key, 'get');
    const o = requireOptions(options, 'get');
    const condition = parseCondition(o.onlyIf);
    const range = parseRange(o.range);
    const override = o.httpMetadata === undefined ? undefined : parseHttpMetadata(o.httpMetadata);
    const customerKey = parseCustomerKey(o.ssecKey);
    await this.#expiry.sweepIfDue();
    let served: ByteRange | undefined;
    let cipher: Decryption | undefined;
    const found = await this.#engine.read(k, (record, partSizes) => {
      cipher = decryptionOf(record, customerKey, partSizes, 'get');
      if (condition && !conditionHolds(condition, record)) return null;
      served = resolveRange(range, record.size);
      return served;
    });
    if (!found) return null;
    const { record } = found;
    const bytes = found.bytes && opened(found.bytes, cipher, served!);
    const view = {
      httpMetadata: override ? { ...record.httpMetadata, ...override } : record.httpMetadata,
      customMetadata: record.customMetadata,
    };
    // Metadata only (a failed condition) reports the whole object, as the platform does.
    if (!bytes) return new StoredObjectResult(record, { ...view, range: this.#whole(record) });
    return new StoredObjectBodyResult(record, { ...view, range: reportedRange(served!, this.#settings.rangeHasEveryField) }, bytes);
  }

  async getPart(key: string, partNumber: number, options?: Omit<GetOptions, 'range'>): Promise<PartRead | null> {
    const k = requireKey(key, 'get');
    const number = requirePartNumber(partNumber);
    const o = requireOptions(options, 'get');
    const condition = parseCondition(o.onlyIf);
    const override = o.httpMetadata === undefined ? undefined : parseHttpMetadata(o.httpMetadata);
    const customerKey = parseCustomerKey(o.ssecKey);
    let served: ByteRange | undefined;
    let partsCount: number | undefined;
    let cipher: Decryption | undefined;
    const found = await this.#engine.read(k, (record, partSizes) => {
      // A multipart object's etag ends in -<parts>; a single put is one part.
      const multipart = /-(\d+)$/.exec(record.etag);
      const sizes = multipart ? partSizes() : [record.size];
      if (multipart) partsCount = sizes.length;
      // A part the object does not have is that, whatever key the read names (as S3 answers).
      if (number > sizes.length) throw noSuchPart(number, sizes.length);
      cipher = decryptionOf(record, customerKey, () => sizes, 'get');
      if (condition && !conditionHolds(condition, record)) return null;
      const offset = sizes.slice(0, number - 1).reduce((sum, size) => sum + size, 0);
      served = { offset, length: sizes[number - 1]! };
      return served;
    });
    if (!found) return null;
    const { record } = found;
    const bytes = found.bytes && opened(found.bytes, cipher, served!);
    const view = {
      httpMetadata: override ? { ...record.httpMetadata, ...override } : record.httpMetadata,
      customMetadata: record.customMetadata,
    };
    const object = bytes
      ? new StoredObjectBodyResult(record, { ...view, range: reportedRange(served!, this.#settings.rangeHasEveryField) }, bytes)
      : new StoredObjectResult(record, { ...view, range: this.#whole(record) });
    const read: PartRead = partsCount === undefined ? { object } : { object, partsCount };
    const flexible = record.checksums.flexible;
    const checksum = partsCount === undefined ? flexible?.value : flexible?.parts?.[number - 1];
    if (flexible && checksum !== undefined) read.checksum = { algorithm: flexible.algorithm, type: flexible.type, value: checksum };
    return read;
  }

  async attributes(
    key: string,
    options?: { onlyIf?: Precondition | Headers; ssecKey?: CustomerKey },
  ): Promise<ObjectAttributes | null> {
    const k = requireKey(key, 'head');
    const o = requireOptions(options, 'head');
    const condition = parseCondition(o.onlyIf);
    const customerKey = parseCustomerKey(o.ssecKey);
    await this.#expiry.sweepIfDue();
    let partSizes: number[] | undefined;
    let conditionsHeld = true;
    // Metadata only: the plan asks for no bytes.
    const found = await this.#engine.read(k, (record, sizes) => {
      requireMatchingKey(record.encryption, customerKey, 'head', 'object');
      if (/-\d+$/.test(record.etag)) partSizes = sizes();
      conditionsHeld = !condition || conditionHolds(condition, record);
      return null;
    });
    if (!found) return null;
    const object = new StoredObjectResult(found.record, { ...found.record, range: this.#whole(found.record) });
    const flexible = found.record.checksums.flexible;
    return {
      object,
      conditionsHeld,
      ...(partSizes
        ? {
            parts: partSizes.map((size, index) => {
              const value = flexible?.parts?.[index];
              return value === undefined
                ? { partNumber: index + 1, size }
                : { partNumber: index + 1, size, checksum: { algorithm: flexible!.algorithm, value } };
            }),
          }
        : {}),
    };
  }

  #whole(record: ObjectRecord): Range {
    return reportedRange({ offset: 0, length: record.size }, this.#settings.rangeHasEveryField);
  }

  put(key: string, value: PutValue, options: PutOptions & { onlyIf: Precondition }): Promise<StoredObject | null>;
  put(key: string, value: PutValue, options?: PutOptions): Promise<StoredObject>;
  async put(key: string, value: PutValue, options?: PutOptions): Promise<StoredObject | null> {
    return this.#put(key, () => byteSource(value, true), options, undefined);
  }

  putWith(key: string, body: ByteSource, options: PutOptions & { checksum?: ChecksumClaim }): Promise<StoredObject | null> {
    return this.#put(key, () => body, options, options.checksum);
  }

  /** The one write of an object: its options checked, then its bytes in one call to the engine. */
  async #put(key: string, sourceOf: () => ByteSource, options: PutOptions | undefined, checksum: ChecksumClaim | undefined) {
    const k = requireKey(key, 'put');
    const o = requireOptions(options, 'put') as PutOptions;
    const condition = parseCondition(o.onlyIf);
    const httpMetadata = parseHttpMetadata(o.httpMetadata);
    const customMetadata = parseCustomMetadata(o.customMetadata, 'put');
    const expected = parseExpectedHash(o);
    requireStorageClass(o.storageClass);
    const customerKey = parseCustomerKey(o.ssecKey);
    const source = sourceOf();
    const allow = (current: ObjectRecord | null) => !condition || conditionHolds(condition, current);
    // Checked early so a doomed body is not received, and again where it counts: at commit. A
    // refusal read from a bucket deleted meanwhile is no such bucket, as the commit would say.
    const worthReceiving = async () => {
      if (!condition || allow(await this.#engine.head(k))) return true;
      await storing('put', () => this.#engine.checkLive());
      return false;
    };
    if (!(await checkBeforeReceiving(source, 'put', worthReceiving))) return null;
    const digest = checksum && !checksum.value ? newDigest(checksum.algorithm) : undefined;
    const sealing = customerKey && newCustomerKey(customerKey);
    const sealer = sealing && new SegmentSealer(sealing.keys);
    const incoming = receiving(source, expected, 'put', digest, sealer);
    const recordOf = (size: number): ObjectRecord => {
      const hashes = incoming.finish();
      // An encrypted object keeps no hash of its plain bytes: they were checked, and are not kept.
      const checksums = sealer ? {} : hashes;
      const claimed = digest ? digest.base64() : checksum?.value?.();
      const record: ObjectRecord = {
        key: k,
        version: newVersion(),
        size,
        etag: sealer ? sealer.etag() : checksums.md5!,
        uploaded: this.#settings.clock(),
        httpMetadata,
        customMetadata,
        checksums: claimed === undefined ? checksums : { ...checksums, flexible: { algorithm: checksum!.algorithm, type: 'FULL_OBJECT', value: claimed } },
      };
      if (sealing) record.encryption = { ...sealing.check, ivs: [sealer!.iv.toString('base64')] };
      return record;
    };
    const stored = await storing('put', () => this.#engine.put(incoming.body, recordOf, allow));
    return stored && new StoredObjectResult(stored, stored);
  }

  async delete(keys: string | string[]): Promise<void> {
    const list: unknown[] = Array.isArray(keys) ? keys : [keys];
    await this.#engine.delete([...new Set(list.map((key) => requireKey(key, 'delete')))]);
  }

  async list(options?: ListOptions): Promise<ListResult> {
    const request = parseListOptions(options, this.#settings.honourInclude);
    if (!request) return emptyPage();
    await this.#expiry.sweepIfDue();
    return this.#engine.list(() => buildPage(request));
  }

  createMultipartUpload(key: string, options?: MultipartOptions): Promise<MultipartUpload> {
    return this.#uploads.create(key, options);
  }

  checksumOf(object: StoredObject): FlexibleChecksum | undefined {
    return StoredChecksums.flexibleOf(object.checksums);
  }

  createUpload(key: string, options: MultipartOptions & { checksum?: UploadChecksum }): Promise<MultipartUpload> {
    return this.#uploads.create(key, options, options.checksum);
  }

  uploadPartWith(
    key: string,
    uploadId: string,
    partNumber: number,
    value: unknown,
    checksum?: ChecksumClaim,
    options?: UploadPartOptions,
  ) {
    return this.#uploads.uploadPart(key, uploadId, partNumber, value, checksum, options);
  }

  resumeMultipartUpload(key: string, uploadId: string): MultipartUpload {
    if (typeof key !== 'string') {
      throw new TypeError(`resumeMultipartUpload: the key must be a string, not ${describe(key)}.`);
    }
    if (typeof uploadId !== 'string') {
      throw new TypeError(`resumeMultipartUpload: the upload id must be a string, not ${describe(uploadId)}.`);
    }
    return this.#uploads.resume(key, uploadId);
  }

  completeUpload(
    key: string,
    uploadId: string,
    parts: UploadedPart[],
    options: CompleteOptions = {},
  ): Promise<StoredObject | null> {
    if (typeof uploadId !== 'string') {
      throw new TypeError(`completeUpload: the upload id must be a string, not ${describe(uploadId)}.`);
    }
    return this.#uploads.completeWith(key, uploadId, parts, options);
  }

  listMultipartUploads(options?: { prefix?: string }): Promise<UploadInProgress[]> {
    return this.#uploads.inProgress(options);
  }

  listParts(key: string, uploadId: string): Promise<{ upload: UploadInProgress; parts: StoredPart[] }> {
    return this.#uploads.parts(key, uploadId);
  }
}

/** What decrypts a read: the data key and the object's segments. */
interface Decryption {
  dataKey: KeyObject;
  segments: CipherSegment[];
}

/**
 * Checks the key a read names against the object (refusing a read without it, with another, or
 * with one for a plain object), and says how to decrypt its bytes; undefined for a plain object.
 */
function decryptionOf(
  record: ObjectRecord,
  customerKey: Buffer | undefined,
  partSizes: () => number[],
  action: 'get' | 'head',
): Decryption | undefined {
  const keys = requireMatchingKey(record.encryption, customerKey, action, 'object');
  return keys && { dataKey: keys.data, segments: segmentsOf(record.encryption!, partSizes, record.size) };
}

/** The bytes of a read as the caller sees them: decrypted when the object is encrypted. */
function opened(bytes: ObjectBytes, cipher: Decryption | undefined, served: ByteRange): ObjectBytes {
  return cipher ? openBytes(bytes, cipher.dataKey, cipher.segments, served.offset) : bytes;
}

storingEach(BucketRuntime, {
  head: 'head',
  get: 'get',
  getPart: 'get',
  attributes: 'head',
  put: 'put',
  putWith: 'put',
  delete: 'delete',
  list: 'list',
});
