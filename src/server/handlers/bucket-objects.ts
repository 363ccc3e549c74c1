/**
 * Objects of a bucket through the API (wrangler's `r2 object ... --remote`, the official
 * client's `r2.buckets.objects`): through the same bucket runtime as the binding and the S3
 * endpoint, bodies streamed both ways.
 */
import type { StoredObject } from '../../bucket';
import { answering, noSuchKey } from '../buckets/errors';
import { downloadHeaders, metadataHeaders, uploadBody } from '../buckets/object-http';
import type { Handler } from '../operations';
import { openPathBucket } from './buckets';

type ObjectOperation = 'listBucketObjects' | 'uploadBucketObject' | 'getBucketObject' | 'deleteBucketObject';

const STANDARD = 'Standard' as const;

function objectView(object: StoredObject) {
  const http = object.httpMetadata ?? {};
  return {
    key: object.key,
    size: object.size,
    etag: object.etag,
    last_modified: object.uploaded.toISOString(),
    http_metadata: {
      ...(http.contentType === undefined ? {} : { contentType: http.contentType }),
      ...(http.contentLanguage === undefined ? {} : { contentLanguage: http.contentLanguage }),
      ...(http.contentDisposition === undefined ? {} : { contentDisposition: http.contentDisposition }),
      ...(http.contentEncoding === undefined ? {} : { contentEncoding: http.contentEncoding }),
      ...(http.cacheControl === undefined ? {} : { cacheControl: http.cacheControl }),
      ...(http.cacheExpiry === undefined ? {} : { cacheExpiry: http.cacheExpiry.toISOString() }),
    },
    custom_metadata: { ...(object.customMetadata ?? {}) },
    // The runtime keeps every object in the Standard class (see the StorageClass schema).
    storage_class: STANDARD,
  };
}

export const bucketObjectHandlers: { [O in ObjectOperation]: Handler<O> } = {
  listBucketObjects: (context) =>
    answering(async () => {
      const bucket = await openPathBucket(context, context.params.account_id, context.params.bucket_name);
      const { prefix, delimiter, start_after, per_page = 1000, cursor } = context.query;
      const page = await bucket.list({
        limit: per_page,
        include: ['httpMetadata', 'customMetadata'],
        ...(prefix === undefined ? {} : { prefix }),
        ...(delimiter === undefined ? {} : { delimiter }),
        ...(start_after === undefined ? {} : { startAfter: start_after }),
        ...(cursor === undefined || cursor === '' ? {} : { cursor }),
      });
      return {
        result: page.objects.map(objectView),
        result_info: {
          per_page,
          is_truncated: page.truncated,
          ...(page.truncated ? { cursor: page.cursor } : {}),
          delimited: page.delimitedPrefixes,
        },
      };
    }),

  uploadBucketObject: (context) =>
    answering(async () => {
      const bucket = await openPathBucket(context, context.params.account_id, context.params.bucket_name);
      const stored = await bucket.put(context.params.object_key, uploadBody(context.request), {
        httpMetadata: metadataHeaders(context.request),
      });
      return {
        result: {
          key: stored.key,
          size: String(stored.size),
          etag: stored.etag,
          uploaded: stored.uploaded.toISOString(),
          version: stored.version,
          storage_class: STANDARD,
        },
      };
    }),

  getBucketObject: (context) =>
    answering(async () => {
      const bucket = await openPathBucket(context, context.params.account_id, context.params.bucket_name);
      const key = context.params.object_key;
      const conditions = new Headers();
      for (const name of ['if-none-match', 'if-modified-since']) {
        const value = context.request.headers[name];
        if (typeof value === 'string') conditions.set(name, value);
      }
      const object = await bucket.get(key, { onlyIf: conditions });
      if (object === null) throw noSuchKey(key);
      const headers = downloadHeaders(object);
      if (!('body' in object)) return { stream: { status: 304, headers, body: null } };
      return { stream: { status: 200, headers: { ...headers, 'content-length': String(object.size) }, body: object.body } };
    }),

  deleteBucketObject: (context) =>
    answering(async () => {
      const bucket = await openPathBucket(context, context.params.account_id, context.params.bucket_name);
      await bucket.delete(context.params.object_key);
      return { result: { key: context.params.object_key } };
    }),
};
