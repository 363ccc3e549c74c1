/**
 * The wire format of workerd's bucket binding (its `r2Bucket` binding talks HTTP to a service):
 * every call is a JSON request (`R2BindingRequest` of workerd's r2-api.capnp, flattened, the
 * operation in `method`), sent in the `cf-r2-request` header of a GET (head, get, list) or as the
 * first `cf-r2-metadata-size` bytes of a PUT's body, the value following (put, uploadPart, and
 * the others with no value). Answers carry their metadata JSON the same way (`cf-r2-metadata-size`
 * bytes, then the object's bytes); failures carry `cf-r2-error: {"version":1,"v4code":<n>,"message":...}`.
 */

export const REQUEST_HEADER = 'cf-r2-request';
export const METADATA_SIZE_HEADER = 'cf-r2-metadata-size';
export const ERROR_HEADER = 'cf-r2-error';

export interface WireEtag {
  type: 'strong' | 'weak' | 'wildcard';
  value?: string;
}

export interface WireConditional {
  etagMatches?: WireEtag[];
  etagDoesNotMatch?: WireEtag[];
  /** Epoch milliseconds (64-bit numbers come as strings in workerd's JSON). */
  uploadedBefore?: number | string;
  uploadedAfter?: number | string;
  secondsGranularity?: boolean;
}

export interface WireHttpFields {
  contentType?: string;
  contentLanguage?: string;
  contentDisposition?: string;
  contentEncoding?: string;
  cacheControl?: string;
  /** Epoch milliseconds. */
  cacheExpiry?: number | string;
}

export interface WireRange {
  offset?: number | string;
  length?: number | string;
  suffix?: number | string;
}

/** The SSE-C key, hex. */
export interface WireSsec {
  key: string;
}

export type WireRequest =
  | { method: 'head'; object: string }
  | { method: 'get'; object: string; range?: WireRange; rangeHeader?: string; onlyIf?: WireConditional; ssec?: WireSsec }
  | {
      method: 'put';
      object: string;
      customFields?: { k: string; v: string }[];
      httpFields?: WireHttpFields;
      onlyIf?: WireConditional;
      md5?: string;
      sha1?: string;
      sha256?: string;
      sha384?: string;
      sha512?: string;
      storageClass?: string;
      ssec?: WireSsec;
    }
  | { method: 'list'; limit?: number; prefix?: string; cursor?: string; delimiter?: string; startAfter?: string; include?: number[]; newRuntime?: boolean }
  | { method: 'delete'; object?: string; objects?: string[] }
  | { method: 'createMultipartUpload'; object: string; customFields?: { k: string; v: string }[]; httpFields?: WireHttpFields; storageClass?: string; ssec?: WireSsec }
  | { method: 'uploadPart'; object: string; uploadId: string; partNumber: number; ssec?: WireSsec }
  | { method: 'completeMultipartUpload'; object: string; uploadId: string; parts: { etag: string; part: number }[] }
  | { method: 'abortMultipartUpload'; object: string; uploadId: string };

/** An object's metadata as the binding reads it back (`R2HeadResponse`). */
export interface WireObject {
  name: string;
  version: string;
  size: number;
  etag: string;
  uploaded: number;
  httpFields?: WireHttpFields;
  customFields?: { k: string; v: string }[];
  range?: { offset: number; length: number };
  /** Hex, keyed by algorithm number: 0 MD5, 1 SHA-1, 2 SHA-256, 3 SHA-384, 4 SHA-512. */
  checksums?: Record<string, string>;
  storageClass?: string;
  /** How the object is encrypted with a customer's key, when it is. */
  ssec?: { algorithm: string; keyMd5: string };
}

/** `include` values of a listing request, as workerd numbers them. */
export const INCLUDE_FIELDS: Record<number, 'httpMetadata' | 'customMetadata'> = { 0: 'httpMetadata', 1: 'customMetadata' };
