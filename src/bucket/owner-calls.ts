/**
 * What the platform's S3-compatible interface can do with a bucket that the binding cannot. Not
 * part of the binding contract; a second front door such as the S3 endpoint uses it.
 */
import type { ByteSource } from './body-source';
import type {
  CustomerKey,
  GetOptions,
  MultipartOptions,
  MultipartUpload,
  Precondition,
  PutOptions,
  PutValue,
  StoredObject,
  StoredObjectBody,
  UploadedPart,
  UploadPartOptions,
} from './contract';
import type {
  ChecksumAlgorithm,
  ChecksumClaim,
  ChecksumType,
  FlexibleChecksum,
  NamedPartChecksums,
  UploadChecksum,
} from './flexible-checksums';
import type { UploadInventory } from './inventory';

/** Part `partNumber` of an object, and how many parts it was uploaded in. */
export interface PartRead {
  /** Metadata only when a condition failed, as `get` answers. */
  object: StoredObjectBody | StoredObject;
  /** The number of parts of a multipart object; absent for an object stored by a single put. */
  partsCount?: number;
  /** The part's S3 checksum (the object's, for an object stored by a single put), when it has one. */
  checksum?: { algorithm: ChecksumAlgorithm; type: ChecksumType; value: string };
}

/** What S3's GetObjectAttributes tells of an object, read without its bytes. */
export interface ObjectAttributes {
  object: StoredObject;
  /** Whether `onlyIf` held (true without one); the attributes are given either way. */
  conditionsHeld: boolean;
  /**
   * The parts of an object completed from a multipart upload, in order, with the S3 checksum each
   * was uploaded with when the upload had an algorithm; absent for an object stored by a single put.
   */
  parts?: { partNumber: number; size: number; checksum?: { algorithm: ChecksumAlgorithm; value: string } }[];
}

export interface CompleteOptions {
  /**
   * The customer key the completion request names: when given, it must be the upload's (error
   * 10029); null when the request named none, which S3 refuses for an encrypted upload created
   * with a checksum algorithm. Left out (the binding's `complete`), no key is asked for.
   */
  ssecKey?: CustomerKey | null;
  /** Checked against the object the upload would replace, at commit; the upload stays open when it fails. */
  onlyIf?: Precondition | Headers;
  /**
   * Completing a completed upload again with the same parts answers the object it made, while
   * that object is still the key's; without this, error 10024 as the binding answers.
   */
  repeatable?: boolean;
  /**
   * The S3 checksums of the whole object the completion request names, by algorithm (base64; a
   * COMPOSITE one ends in `-<parts>`): the one of the upload's algorithm must be the one made
   * from the parts, or error 10037.
   */
  checksums?: Partial<Record<ChecksumAlgorithm, string>>;
  /**
   * The checksums the completion request names for each part: each must be the one the part was
   * uploaded with (error 10025); an upload with a COMPOSITE checksum needs one for every part.
   */
  partChecksums?: NamedPartChecksums;
  /** The size the object must have (S3's `x-amz-mp-object-size`): the parts named must add up to it, or nothing changes. */
  objectSize?: number;
}

export interface OwnerCalls extends UploadInventory {
  /**
   * The binding's `put` of bytes already in the form they reach the engine in (see ByteSource),
   * keeping the S3 checksum `checksum` names with the object (its value read once the body is
   * received: a trailer comes after the bytes). Null when `onlyIf` failed.
   */
  putWith(key: string, body: ByteSource, options: PutOptions & { checksum?: ChecksumClaim }): Promise<StoredObject | null>;
  /** `createMultipartUpload`, remembering the S3 checksum the completed object gets from its parts. */
  createUpload(key: string, options: MultipartOptions & { checksum?: UploadChecksum }): Promise<MultipartUpload>;
  /**
   * `uploadPart`, keeping the part's S3 checksum: the one `checksum` names, else (for an upload
   * created with an algorithm) one computed over the bytes, which the answer carries.
   */
  uploadPartWith(
    key: string,
    uploadId: string,
    partNumber: number,
    value: unknown,
    checksum?: ChecksumClaim,
    options?: UploadPartOptions,
  ): Promise<UploadedPart & { checksum?: { algorithm: ChecksumAlgorithm; value: string } }>;
  /**
   * Reads one part of an object as it was uploaded (an object stored by a single put is part 1),
   * under the options of `get` (`range` excepted). Null when the key does not exist; error 10025
   * when the object has no such part.
   */
  getPart(key: string, partNumber: number, options?: Omit<GetOptions, 'range'>): Promise<PartRead | null>;
  /** An object's metadata and parts, without its bytes (`head` plus the parts); null when the key does not exist. */
  attributes(key: string, options?: { onlyIf?: Precondition | Headers; ssecKey?: CustomerKey }): Promise<ObjectAttributes | null>;
  /** The S3 checksum kept with an object read or written here, if any. */
  checksumOf(object: StoredObject): FlexibleChecksum | undefined;
  /** The binding's `complete`, with conditions and repeatable completion. Null when `onlyIf` failed. */
  completeUpload(
    key: string,
    uploadId: string,
    parts: UploadedPart[],
    options?: CompleteOptions,
  ): Promise<StoredObject | null>;
}
