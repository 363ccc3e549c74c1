/**
 * The records of a state file (format version 1), in the order they come: the store's
 * (`store.schema`, then `store.row`s table by table, then `store.counter`s), then each bucket
 * (`bucket`) followed by its objects (`object`, with bytes) and its uploads in progress
 * (`upload`, each followed by its `part`s, with bytes). Every record is checked against these
 * shapes before anything is loaded.
 */
import { z } from 'zod';
import { CHECKSUM_ALGORITHMS } from '../bucket';
import { StateFileError } from './format';

const account = z.string().regex(/^[0-9a-f]{32}$/, 'must be a 32-hex account id');
const bucketName = z.string().regex(/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/, 'must be a bucket name');
const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const text = z.record(z.string(), z.string());
const httpMetadata = z
  .object({
    contentType: z.string().optional(),
    contentLanguage: z.string().optional(),
    contentDisposition: z.string().optional(),
    contentEncoding: z.string().optional(),
    cacheControl: z.string().optional(),
    cacheExpiry: z.number().optional(),
  })
  .strict();
/** The S3 checksums (flexible checksums) an object, an upload or a part keeps. */
const algorithm = z.enum(CHECKSUM_ALGORITHMS);
const checksumType = z.enum(['FULL_OBJECT', 'COMPOSITE']);
const flexible = z
  .object({ algorithm, type: checksumType, value: z.string().min(1), parts: z.array(z.string()).optional() })
  .strict();
const checksums = z
  .object({ md5: z.string(), sha1: z.string(), sha256: z.string(), sha384: z.string(), sha512: z.string(), flexible })
  .partial()
  .strict();
const hex32 = z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 hex characters');
const base64 = (bytes: number) =>
  z
    .string()
    .refine((text) => /^[A-Za-z0-9+/]*={0,2}$/.test(text) && Buffer.from(text, 'base64').byteLength === bytes, `must be ${bytes} bytes in base64`);
/** What checks a customer's key (SSE-C), never the key itself; and the IVs of an encrypted object's segments. */
const keyCheck = z.object({ keyMd5: base64(16), salt: base64(16), hmac: base64(32) }).strict();
const objectEncryption = keyCheck.extend({ ivs: z.array(base64(16)).min(1) }).strict();

export const storeSchemaRecord = z.object({ type: z.literal('store.schema'), migrations: z.array(z.string()) }).strict();
export const storeRowRecord = z
  .object({
    type: z.literal('store.row'),
    table: z.string().min(1),
    row: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
  })
  .strict();
export const storeCounterRecord = z.object({ type: z.literal('store.counter'), name: z.string().min(1), value: count }).strict();

export const bucketRecord = z
  .object({
    type: z.literal('bucket'),
    account,
    name: bucketName,
    createdAt: z.iso.datetime(),
    location: z.enum(['apac', 'eeur', 'enam', 'weur', 'wnam', 'oc']),
    jurisdiction: z.enum(['default', 'eu', 'fedramp']),
    storageClass: z.enum(['Standard', 'InfrequentAccess']),
    cors: z.array(z.unknown()).nullable(),
    lifecycle: z.array(z.unknown()),
  })
  .strict();

export const objectRecord = z
  .object({
    type: z.literal('object'),
    key: z.string(),
    version: z.string().min(1),
    size: count,
    etag: z.string().min(1),
    uploaded: count,
    httpMetadata,
    customMetadata: text,
    checksums,
    /** Present for an object stored encrypted: its bytes are saved as stored, encrypted. */
    encryption: objectEncryption.optional(),
    /** The sizes of the parts it was stored as: one for a put, each part's for a multipart upload. */
    partSizes: z.array(count).min(1),
    bytes: count,
  })
  .strict()
  .refine((record) => record.bytes === record.size, 'bytes must equal size')
  .refine((record) => !record.encryption || record.encryption.ivs.length === record.partSizes.length, 'encryption needs one IV per part')
  .refine((record) => record.partSizes.reduce((sum, size) => sum + size, 0) === record.size, 'partSizes must add up to size');

export const uploadRecord = z
  .object({
    type: z.literal('upload'),
    uploadId: z.string().min(1),
    key: z.string(),
    created: count,
    httpMetadata,
    customMetadata: text,
    checksum: z.object({ algorithm, type: checksumType }).strict().optional(),
    encryption: keyCheck.optional(),
  })
  .strict();

export const partRecord = z
  .object({
    type: z.literal('part'),
    partNumber: z.number().int().min(1).max(10_000),
    size: count,
    etag: z.string().min(1),
    md5: hex32,
    checksum: z.object({ algorithm, value: z.string().min(1) }).strict().optional(),
    iv: base64(16).optional(),
    bytes: count,
  })
  .strict()
  .refine((record) => record.bytes === record.size, 'bytes must equal size');

export type StoreSchemaRecord = z.infer<typeof storeSchemaRecord>;
export type StoreRowRecord = z.infer<typeof storeRowRecord>;
export type StoreCounterRecord = z.infer<typeof storeCounterRecord>;
export type BucketStateRecord = z.infer<typeof bucketRecord>;
export type ObjectStateRecord = z.infer<typeof objectRecord>;
export type UploadStateRecord = z.infer<typeof uploadRecord>;
export type PartStateRecord = z.infer<typeof partRecord>;

const SCHEMAS = {
  'store.schema': storeSchemaRecord,
  'store.row': storeRowRecord,
  'store.counter': storeCounterRecord,
  bucket: bucketRecord,
  object: objectRecord,
  upload: uploadRecord,
  part: partRecord,
} as const;
export type RecordType = keyof typeof SCHEMAS;

/** The record checked against its type's shape; throws a message naming the member at fault. */
export function checkRecord(record: { type: string }, where: string): { type: RecordType } {
  const schema = SCHEMAS[record.type as RecordType];
  if (!schema) throw new StateFileError(`${where}: unknown record type ${JSON.stringify(record.type)}`);
  const parsed = (schema as z.ZodType).safeParse(record);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new StateFileError(`${where}: the ${record.type} record's ${issue.path.join('.') || 'shape'} ${issue.message}`);
  }
  return parsed.data as { type: RecordType };
}
