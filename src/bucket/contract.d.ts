/**
 * The bucket binding contract: what worker code sees when a bucket is bound to it.
 *
 * Hand-written from the bucket binding spec, with the shape details of the edge platform's
 * published typings, so worker code written against those typings runs against this contract
 * unchanged (a type-level test checks it). Neutral names are used throughout.
 *
 * Errors: argument mistakes reject with `TypeError` or `RangeError`; storage failures reject
 * with an `Error` whose message reads `"<operation>: <text> (<code>)"` and which carries the
 * numeric `code` (see `BucketError`). A missing key is never an error for `head` and `get`.
 */

/** A value that can be stored: a stream of bytes, bytes, text, a Blob, or nothing (empty object). */
export type PutValue = ReadableStream | ArrayBuffer | ArrayBufferView | string | null | Blob;

/** A value that can be uploaded as one part of a multipart upload. */
export type PartValue = ReadableStream | ArrayBuffer | ArrayBufferView | string | Blob;

/**
 * HTTP metadata stored with an object. Stored values are those given at creation; values passed
 * on a read override them field by field and are echoed back in that read's result.
 */
export interface HttpMetadata {
  contentType?: string;
  contentLanguage?: string;
  contentDisposition?: string;
  contentEncoding?: string;
  cacheControl?: string;
  /** Written as the `Expires` header by `writeHttpMetadata`. */
  cacheExpiry?: Date;
}

/** Checksums in hexadecimal, as `Checksums.toJSON()` returns them. */
export interface HexChecksums {
  md5?: string;
  sha1?: string;
  sha256?: string;
  sha384?: string;
  sha512?: string;
}

/**
 * Stored checksums. MD5 is present for every object stored by a single `put`; another algorithm
 * is present when its hash was supplied on `put`. Objects assembled by a multipart upload carry
 * none, and neither do objects encrypted under a customer key: a hash of their plain bytes is
 * checked on `put` and never kept.
 */
export interface Checksums {
  readonly md5?: ArrayBuffer;
  readonly sha1?: ArrayBuffer;
  readonly sha256?: ArrayBuffer;
  readonly sha384?: ArrayBuffer;
  readonly sha512?: ArrayBuffer;
  /** The same checksums as lower-case hex strings. */
  toJSON(): HexChecksums;
}

/**
 * A byte range to read. Numbers are non-negative integers (`RangeError` otherwise); `suffix`
 * cannot be combined with `offset` or `length` (`TypeError`). A length or suffix beyond the
 * object is clamped, so fewer bytes are returned. An offset at or past the end, a length of 0
 * or a suffix of 0 is unsatisfiable (error 10039).
 */
export type Range =
  | {
      /** Inclusive start byte. */
      offset: number;
      /** Number of bytes; to the end when absent. */
      length?: number;
    }
  | {
      /** Inclusive start byte; 0 when absent. */
      offset?: number;
      /** Number of bytes. */
      length: number;
    }
  | {
      /** Number of bytes from the end. */
      suffix: number;
    };

/**
 * A precondition on the stored object (RFC 7232 semantics). Etags are given without quotes
 * (`TypeError` otherwise); `*` stands for any existing object.
 *
 * - `etagMatches` passes when the stored etag equals it (strong comparison); when it passes,
 *   `uploadedBefore` is not considered.
 * - `etagDoesNotMatch` passes when the stored etag differs (weak comparison); when it passes,
 *   `uploadedAfter` is not considered.
 * - `uploadedBefore` / `uploadedAfter` compare strictly with the upload time.
 *
 * On a missing key, `head` and `get` answer null before any condition; for `put`,
 * `etagMatches` and `uploadedAfter` fail while `etagDoesNotMatch` and `uploadedBefore` pass,
 * so `{ etagDoesNotMatch: '*' }` means "create only if absent".
 */
export interface Conditional {
  etagMatches?: string;
  etagDoesNotMatch?: string;
  uploadedBefore?: Date;
  uploadedAfter?: Date;
  /** Floor both dates to whole seconds before comparing (always on for the Headers form). */
  secondsGranularity?: boolean;
}

/**
 * A precondition: a `Conditional`, or `Headers` carrying `If-Match`, `If-None-Match`
 * (RFC 7232 lists of `"tag"`, `W/"tag"` or `*`), `If-Modified-Since` and
 * `If-Unmodified-Since`. `If-Range` is not supported and is ignored.
 */
export type Precondition = Conditional | Headers;

/**
 * A customer's encryption key (SSE-C): 32 bytes, as 64 lower-case hex characters or an
 * ArrayBuffer (another form is an `Error`, as the platform throws: "SSE-C Key has invalid format",
 * "SSE-C Key must be 32 bytes in length"). The bytes are stored encrypted with AES-256 under it;
 * the key itself is never stored.
 */
export type CustomerKey = ArrayBuffer | string;

export interface GetOptions {
  /** When the precondition fails, `get` resolves to the metadata without a body. */
  onlyIf?: Precondition;
  /** The bytes to read; Headers with a single `Range: bytes=...` are accepted too. */
  range?: Range | Headers;
  /** Overrides the stored HTTP metadata in this read's result, field by field. */
  httpMetadata?: HttpMetadata | Headers;
  /**
   * The key an encrypted object was stored with: required for one (error 10029 without it or
   * with another key), refused for an object stored without one (10029).
   */
  ssecKey?: CustomerKey;
}

export interface PutOptions {
  /** When the precondition fails, `put` stores nothing and resolves to null. */
  onlyIf?: Precondition;
  /** As an object, or as request Headers (`Content-Type`, `Expires`, ...). */
  httpMetadata?: HttpMetadata | Headers;
  /** User-defined metadata, at most 8,192 bytes of keys plus values (error 10012). */
  customMetadata?: Record<string, string>;
  /**
   * Integrity hashes checked against the received bytes: binary or hex. At most one algorithm
   * may be given (`TypeError`); a mismatch rejects the put (error 10037) and stores nothing.
   */
  md5?: ArrayBuffer | ArrayBufferView | string;
  sha1?: ArrayBuffer | ArrayBufferView | string;
  sha256?: ArrayBuffer | ArrayBufferView | string;
  sha384?: ArrayBuffer | ArrayBufferView | string;
  sha512?: ArrayBuffer | ArrayBufferView | string;
  /** Only `"Standard"` exists here. */
  storageClass?: string;
  /** Stores the bytes encrypted under this key; every read then needs it. */
  ssecKey?: CustomerKey;
}

export interface MultipartOptions {
  httpMetadata?: HttpMetadata | Headers;
  customMetadata?: Record<string, string>;
  /** Only `"Standard"` exists here. */
  storageClass?: string;
  /** Every part is stored encrypted under this key, and must name it (10029 otherwise). */
  ssecKey?: CustomerKey;
}

export interface UploadPartOptions {
  /** The key the upload was created with: required when it was, refused when it was not (10029). */
  ssecKey?: CustomerKey;
}

export interface ListOptions {
  /** Maximum number of objects plus delimited prefixes; 1 to 1000 (error 10022), default 1000. */
  limit?: number;
  /** Only keys starting with it are returned. */
  prefix?: string;
  /** Opaque token from a previous result. An unknown cursor yields an empty page. */
  cursor?: string;
  /** Groups keys: the part of a key between the prefix and the delimiter becomes a prefix. */
  delimiter?: string;
  /** Only keys after it (exclusive) are returned. */
  startAfter?: string;
  /**
   * Metadata carried by listed objects. Honoured with a compatibility date of 2022-08-04 or later
   * or the list-honour-include flag; otherwise both kinds are always included. Unknown values
   * are a `RangeError`.
   */
  include?: ('httpMetadata' | 'customMetadata')[];
}

/**
 * One page of a listing, in byte order of the UTF-8 keys. A page may hold fewer than `limit`
 * entries (room is needed for metadata): loop on `truncated` with `cursor`, never compare the
 * count with `limit`.
 */
export type ListResult = {
  objects: StoredObject[];
  /**
   * With a delimiter: the distinct prefixes between the given prefix and the next delimiter
   * occurrence, delimiter included (no prefix, delimiter `/`, key `a/b/c` gives `a/`; prefix
   * `a/` gives `a/b/`).
   */
  delimitedPrefixes: string[];
} & (
  | {
      /** More entries remain. */
      truncated: true;
      /** Pass as `cursor` to continue; resumes after the last returned entry. */
      cursor: string;
    }
  | {
      truncated: false;
    }
);

/** Metadata of a stored object. */
export interface StoredObject {
  readonly key: string;
  /** Random, unique per upload of a key. */
  readonly version: string;
  /** Bytes. */
  readonly size: number;
  /**
   * MD5 in hex for a single put; for a multipart object, the MD5 of the parts' binary MD5s followed
   * by `-<parts>`. For an object encrypted under a customer key, a digest of its bytes keyed with
   * that key stands for each MD5: no etag tells the MD5 of an encrypted object's plain bytes (as
   * S3's etags of such objects do not).
   */
  readonly etag: string;
  /** The etag in double quotes, suitable as a header value. */
  readonly httpEtag: string;
  readonly checksums: Checksums;
  readonly uploaded: Date;
  /** Absent on listed objects when `include` is honoured and does not name it. */
  readonly httpMetadata?: HttpMetadata;
  /** Absent on listed objects when `include` is honoured and does not name it. */
  readonly customMetadata?: Record<string, string>;
  /**
   * The bytes served: on a read (the whole object when no range was asked for, or when a
   * condition failed) and on `head`, `{offset: 0, length: size}`. Present but undefined on
   * `put`, `complete` and list results. From compatibility date 2025-12-03 it also carries
   * `suffix: undefined`: test `range.suffix !== undefined`, never `'suffix' in range`.
   */
  readonly range?: Range;
  /** Always `"Standard"`. */
  readonly storageClass: string;
  /** The base64 MD5 of the customer key an encrypted object was stored with; undefined otherwise. */
  readonly ssecKeyMd5?: string;
  /**
   * Writes the HTTP metadata as headers (`Content-Type`, `Content-Language`,
   * `Content-Disposition`, `Content-Encoding`, `Cache-Control`, `Expires`).
   * `TypeError` when the metadata was not included in a listing.
   */
  writeHttpMetadata(headers: Headers): void;
}

/** A stored object with its bytes. The body can be consumed once. */
export interface StoredObjectBody extends StoredObject {
  /** The bytes as a byte stream: a BYOB reader gets them read straight into its own buffer. */
  readonly body: ReadableStream;
  /** True once the body has been read or cancelled. */
  readonly bodyUsed: boolean;
  arrayBuffer(): Promise<ArrayBuffer>;
  bytes(): Promise<Uint8Array>;
  text(): Promise<string>;
  json<T>(): Promise<T>;
  /** A Blob typed with the stored content type. */
  blob(): Promise<Blob>;
}

/** Identifies an uploaded part when completing an upload. */
export interface UploadedPart {
  partNumber: number;
  etag: string;
}

/**
 * An upload in progress. Invisible to `head`, `get` and `list` until completed; a `put` or
 * `delete` of the same key does not disturb it. Aborted automatically 7 days after creation.
 */
export interface MultipartUpload {
  readonly key: string;
  readonly uploadId: string;
  /**
   * Stores part `partNumber` (1 to 10000, `TypeError` otherwise); uploading a number again
   * replaces that part. Its etag is the MD5 of its bytes, hex (as on the platform since June
   * 2023), so other bytes give another etag (a keyed digest instead of the MD5, for an upload
   * created with a customer key). Error 10024 when the upload does not exist, was aborted or
   * completed.
   */
  uploadPart(partNumber: number, value: PartValue, options?: UploadPartOptions): Promise<UploadedPart>;
  /** Discards the upload and its parts. Repeatable; after `complete` it does nothing. */
  abort(): Promise<void>;
  /**
   * Assembles the listed parts in part-number order (gaps allowed) into the object, which is
   * then immediately readable. All parts but the last must be of one size, at least the minimum
   * part size (10011, 10048), and the last no larger; every part must exist with its current
   * etag (10025); a part number may appear once (10001).
   */
  complete(uploadedParts: UploadedPart[]): Promise<StoredObject>;
}

/**
 * A bucket as bound to a worker. Writes and deletes are strongly consistent: once the promise
 * resolves, every later read sees the change. Keys are any string of at most 1024 bytes of
 * UTF-8 (error 10020); the empty key is valid.
 */
export interface Bucket {
  /** Metadata of the object, or null when the key does not exist. */
  head(key: string): Promise<StoredObject | null>;
  /**
   * The object with its body, or null when the key does not exist; when the precondition fails,
   * the metadata without a body.
   */
  get(
    key: string,
    options: GetOptions & { onlyIf: Precondition },
  ): Promise<StoredObjectBody | StoredObject | null>;
  get(key: string, options?: GetOptions): Promise<StoredObjectBody | null>;
  /**
   * Stores the value, replacing any object under the key, and resolves to its metadata; null
   * when the precondition fails (nothing stored). At most 5 GiB - 5 MiB (error 100100).
   */
  put(
    key: string,
    value: PutValue,
    options: PutOptions & { onlyIf: Precondition },
  ): Promise<StoredObject | null>;
  put(key: string, value: PutValue, options?: PutOptions): Promise<StoredObject>;
  /** Starts a multipart upload, usable immediately. */
  createMultipartUpload(key: string, options?: MultipartOptions): Promise<MultipartUpload>;
  /**
   * A handle on an existing upload, without checking that it exists: an invalid id fails on the
   * next call.
   */
  resumeMultipartUpload(key: string, uploadId: string): MultipartUpload;
  /** Deletes one key or many; missing keys are ignored. */
  delete(keys: string | string[]): Promise<void>;
  /** One page of keys; by default the first 1000 entries. */
  list(options?: ListOptions): Promise<ListResult>;
}
