/** Between the binding's wire shapes and the bucket library's calls. */
import type { HttpMetadata, Precondition, Range, StoredObject } from '../../bucket';
import type { WireConditional, WireHttpFields, WireObject, WireRange } from './wire';

const CHECKSUM_KEYS = { md5: '0', sha1: '1', sha256: '2', sha384: '3', sha512: '4' } as const;

/** An object's metadata on the wire; `fields` says which metadata a listing asked for. */
export function wireObject(object: StoredObject, fields: { http: boolean; custom: boolean } = { http: true, custom: true }): WireObject {
  const wire: WireObject = {
    name: object.key,
    version: object.version,
    size: object.size,
    etag: object.etag,
    uploaded: object.uploaded.getTime(),
    storageClass: object.storageClass,
  };
  if (fields.http && object.httpMetadata) wire.httpFields = wireHttpFields(object.httpMetadata);
  if (fields.custom && object.customMetadata) wire.customFields = Object.entries(object.customMetadata).map(([k, v]) => ({ k, v }));
  const range = object.range as { offset?: number; length?: number } | undefined;
  if (range && range.offset !== undefined && range.length !== undefined) wire.range = { offset: range.offset, length: range.length };
  const hex = object.checksums.toJSON();
  const checksums: Record<string, string> = {};
  for (const [name, key] of Object.entries(CHECKSUM_KEYS)) {
    const value = hex[name as keyof typeof CHECKSUM_KEYS];
    if (value !== undefined) checksums[key] = value;
  }
  if (Object.keys(checksums).length > 0) wire.checksums = checksums;
  if (object.ssecKeyMd5 !== undefined) wire.ssec = { algorithm: 'AES256', keyMd5: object.ssecKeyMd5 };
  return wire;
}

function wireHttpFields(metadata: HttpMetadata): WireHttpFields {
  const fields: WireHttpFields = {};
  if (metadata.contentType !== undefined) fields.contentType = metadata.contentType;
  if (metadata.contentLanguage !== undefined) fields.contentLanguage = metadata.contentLanguage;
  if (metadata.contentDisposition !== undefined) fields.contentDisposition = metadata.contentDisposition;
  if (metadata.contentEncoding !== undefined) fields.contentEncoding = metadata.contentEncoding;
  if (metadata.cacheControl !== undefined) fields.cacheControl = metadata.cacheControl;
  if (metadata.cacheExpiry !== undefined) fields.cacheExpiry = metadata.cacheExpiry.getTime();
  return fields;
}

export function httpMetadataOf(fields: WireHttpFields | undefined): HttpMetadata | undefined {
  if (!fields) return undefined;
  const metadata: HttpMetadata = {};
  if (fields.contentType !== undefined) metadata.contentType = fields.contentType;
  if (fields.contentLanguage !== undefined) metadata.contentLanguage = fields.contentLanguage;
  if (fields.contentDisposition !== undefined) metadata.contentDisposition = fields.contentDisposition;
  if (fields.contentEncoding !== undefined) metadata.contentEncoding = fields.contentEncoding;
  if (fields.cacheControl !== undefined) metadata.cacheControl = fields.cacheControl;
  if (fields.cacheExpiry !== undefined) metadata.cacheExpiry = new Date(Number(fields.cacheExpiry));
  return metadata;
}

export function customMetadataOf(fields: { k: string; v: string }[] | undefined): Record<string, string> | undefined {
  if (!fields) return undefined;
  return Object.fromEntries(fields.map(({ k, v }) => [k, v]));
}

/** workerd's JSON writes 64-bit numbers as strings. */
const numberOf = (value: number | string | undefined): number | undefined => (value === undefined ? undefined : Number(value));

export function rangeOf(range: WireRange | undefined, header: string | undefined): Range | Headers | undefined {
  if (header !== undefined) return new Headers({ range: header });
  if (!range) return undefined;
  const offset = numberOf(range.offset);
  const length = numberOf(range.length);
  const suffix = numberOf(range.suffix);
  if (suffix !== undefined) return { suffix };
  if (offset === undefined && length === undefined) return undefined;
  return { ...(offset === undefined ? {} : { offset }), ...(length === undefined ? {} : { length }) } as Range;
}

/**
 * A condition as the bucket library takes it. workerd sends both of the binding's forms as lists
 * of entity tags: a Conditional object becomes one strong tag (or `*`) per list; Headers may give
 * several, weak ones included, and always compare in whole seconds. The object form is used
 * whenever it can say the same; otherwise the condition goes back into headers.
 */
export function preconditionOf(condition: WireConditional | undefined): Precondition | undefined {
  if (!condition) return undefined;
  const single = (tags: WireConditional['etagMatches']) => tags === undefined || (tags.length === 1 && tags[0]!.type !== 'weak');
  if (single(condition.etagMatches) && single(condition.etagDoesNotMatch)) {
    const tagOf = (tags: NonNullable<WireConditional['etagMatches']>) => (tags[0]!.type === 'wildcard' ? '*' : tags[0]!.value!);
    return {
      ...(condition.etagMatches ? { etagMatches: tagOf(condition.etagMatches) } : {}),
      ...(condition.etagDoesNotMatch ? { etagDoesNotMatch: tagOf(condition.etagDoesNotMatch) } : {}),
      ...(condition.uploadedBefore !== undefined ? { uploadedBefore: new Date(Number(condition.uploadedBefore)) } : {}),
      ...(condition.uploadedAfter !== undefined ? { uploadedAfter: new Date(Number(condition.uploadedAfter)) } : {}),
      ...(condition.secondsGranularity ? { secondsGranularity: true } : {}),
    };
  }
  const list = (tags: NonNullable<WireConditional['etagMatches']>) =>
    tags.map((tag) => (tag.type === 'wildcard' ? '*' : tag.type === 'weak' ? `W/"${tag.value}"` : `"${tag.value}"`)).join(', ');
  const headers = new Headers();
  if (condition.etagMatches) headers.set('if-match', list(condition.etagMatches));
  if (condition.etagDoesNotMatch) headers.set('if-none-match', list(condition.etagDoesNotMatch));
  if (condition.uploadedAfter !== undefined) headers.set('if-modified-since', new Date(Number(condition.uploadedAfter)).toUTCString());
  if (condition.uploadedBefore !== undefined) headers.set('if-unmodified-since', new Date(Number(condition.uploadedBefore)).toUTCString());
  return headers;
}
