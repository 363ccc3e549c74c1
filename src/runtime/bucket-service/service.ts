/**
 * The bucket binding of deployed workers, served to workerd over its own wire format (see
 * wire.ts) from the catalogue: the same buckets the API, S3 and `npm run worker` see. A worker
 * reaches only the buckets its bindings name: workerd adds an unguessable grant to every call
 * of a binding (`injectRequestHeaders`), which the worker's code can neither see nor forge, and
 * the grant names the account and bucket. The service listens on a Unix socket in a directory
 * only this user may enter.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { declareStreamLength, type BucketCatalogue, type OpenBucket, type PutOptions, type StoredObjectBody } from '../../bucket';
import { writeStreamedBody } from '../../streamed-body';
import { GrantedService } from '../granted-socket';
import { BindingRefusal, internalError, noSuchKey, preconditionFailed, wireError, type WireError } from './errors';
import { customMetadataOf, httpMetadataOf, preconditionOf, rangeOf, wireObject } from './translate';
import { ERROR_HEADER, INCLUDE_FIELDS, METADATA_SIZE_HEADER, REQUEST_HEADER, type WireRequest } from './wire';

/** The header workerd adds to every call of a binding. */
export const GRANT_HEADER = 'cf-edge-binding';

/** Values up to this size are read whole; larger ones are streamed into the bucket. */
const BUFFERED_VALUE = 1024 * 1024;

interface Grant {
  account: string;
  bucket: string;
}

/** Grants name one bucket of one account. */
export class BucketService extends GrantedService<Grant> {
  readonly #catalogue: BucketCatalogue;
  readonly #report: (line: string) => void;

  constructor(catalogue: BucketCatalogue, report: (line: string) => void) {
    super(GRANT_HEADER);
    this.#catalogue = catalogue;
    this.#report = report;
  }

  protected async serve(request: IncomingMessage, response: ServerResponse, grant: Grant | undefined): Promise<void> {
    try {
      if (!grant) throw new BindingRefusal(10001, 'This binding is no longer served.');
      // workerd writes the call's UTF-8 bytes into the header; Node reads header bytes as Latin-1.
      if (request.method === 'GET') await this.#read(grant, JSON.parse(Buffer.from(String(request.headers[REQUEST_HEADER] ?? 'null'), 'latin1').toString('utf8')) as WireRequest, response);
      else if (request.method === 'PUT') await this.#write(grant, request, response);
      else throw new BindingRefusal(10001, `${request.method} is not a call of the binding.`);
    } catch (error) {
      const known = wireError(error);
      if (!known) this.#report(`bucket binding call failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      sendError(response, known ?? internalError);
    }
  }

  /** The bucket, as last found when a read can tell staleness from its own outcome (see `AccountBuckets.lastFound`). */
  async #bucket(grant: Grant, fresh: boolean): Promise<OpenBucket> {
    const buckets = this.#catalogue.account(grant.account);
    return (!fresh && buckets.lastFound(grant.bucket)) || buckets.bucket(grant.bucket);
  }

  /** A read through the bucket last found; again through a fresh look when it found nothing. */
  async #reading<T>(grant: Grant, read: (bucket: OpenBucket) => Promise<T | null>): Promise<T | null> {
    const known = this.#catalogue.account(grant.account).lastFound(grant.bucket);
    if (known) {
      const found = await read(known);
      if (found !== null) return found;
    }
    return read(await this.#bucket(grant, true));
  }

  async #read(grant: Grant, call: WireRequest, response: ServerResponse): Promise<void> {
    switch (call?.method) {
      case 'head': {
        const object = await this.#reading(grant, (bucket) => bucket.head(call.object));
        if (!object) return sendError(response, noSuchKey);
        return sendMetadata(response, wireObject(object));
      }
      case 'get': {
        const range = rangeOf(call.range, call.rangeHeader);
        const onlyIf = preconditionOf(call.onlyIf);
        const options = { ...(range ? { range } : {}), ...(onlyIf ? { onlyIf } : {}), ...ssecOf(call.ssec) };
        const object = await this.#reading(grant, (bucket) => bucket.get(call.object, options));
        if (!object) return sendError(response, noSuchKey);
        if (!('body' in object)) return sendError(response, preconditionFailed, wireObject(object));
        return sendObject(response, object, this.#report);
      }
      case 'list': {
        const include = call.include?.map((field) => INCLUDE_FIELDS[field]).filter((field) => field !== undefined) ?? ['httpMetadata', 'customMetadata'];
        const bucket = await this.#bucket(grant, false);
        const page = await bucket.list({
          ...(call.limit !== undefined ? { limit: call.limit } : {}),
          ...(call.prefix !== undefined ? { prefix: call.prefix } : {}),
          ...(call.cursor !== undefined ? { cursor: call.cursor } : {}),
          ...(call.delimiter !== undefined ? { delimiter: call.delimiter } : {}),
          ...(call.startAfter !== undefined ? { startAfter: call.startAfter } : {}),
          include,
        });
        const fields = { http: include.includes('httpMetadata'), custom: include.includes('customMetadata') };
        return sendMetadata(response, {
          objects: page.objects.map((object) => wireObject(object, fields)),
          truncated: page.truncated,
          ...(page.truncated ? { cursor: page.cursor } : {}),
          delimitedPrefixes: page.delimitedPrefixes,
        });
      }
      default:
        throw new BindingRefusal(10001, `${String((call as { method?: unknown } | null)?.method)} is not a read of the binding.`);
    }
  }

  async #write(grant: Grant, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const metadataSize = Number(request.headers[METADATA_SIZE_HEADER]);
    const total = Number(request.headers['content-length']);
    if (!Number.isSafeInteger(metadataSize) || !Number.isSafeInteger(total) || metadataSize < 0 || metadataSize > total) {
      throw new BindingRefusal(10001, 'The call has no readable metadata.');
    }
    const { metadata, value } = await readCall(request, metadataSize, total - metadataSize);
    const call = JSON.parse(metadata.toString('utf8')) as WireRequest;
    const bucket = await this.#bucket(grant, true);
    switch (call.method) {
      case 'put': {
        const options: PutOptions = { ...ssecOf(call.ssec) };
        const onlyIf = preconditionOf(call.onlyIf);
        if (onlyIf) options.onlyIf = onlyIf;
        const httpMetadata = httpMetadataOf(call.httpFields);
        if (httpMetadata) options.httpMetadata = httpMetadata;
        const customMetadata = customMetadataOf(call.customFields);
        if (customMetadata) options.customMetadata = customMetadata;
        if (call.md5 !== undefined) options.md5 = Buffer.from(call.md5, 'base64');
        for (const algorithm of ['sha1', 'sha256', 'sha384', 'sha512'] as const) if (call[algorithm] !== undefined) options[algorithm] = call[algorithm];
        if (call.storageClass !== undefined) options.storageClass = call.storageClass;
        const stored = await bucket.put(call.object, value, options as PutOptions & { onlyIf: never });
        if (!stored) return sendError(response, preconditionFailed);
        return sendJson(response, wireObject(stored));
      }
      case 'delete':
        await bucket.delete(call.objects ?? call.object ?? []);
        return sendJson(response, {});
      case 'createMultipartUpload': {
        const httpMetadata = httpMetadataOf(call.httpFields);
        const customMetadata = customMetadataOf(call.customFields);
        const upload = await bucket.createMultipartUpload(call.object, {
          ...(httpMetadata ? { httpMetadata } : {}),
          ...(customMetadata ? { customMetadata } : {}),
          ...(call.storageClass !== undefined ? { storageClass: call.storageClass } : {}),
          ...ssecOf(call.ssec),
        });
        return sendJson(response, { uploadId: upload.uploadId, ...(call.ssec ? { ssec: { algorithm: 'AES256', keyMd5: customerKeyMd5(call.ssec.key) } } : {}) });
      }
      case 'uploadPart': {
        const part = await bucket.resumeMultipartUpload(call.object, call.uploadId).uploadPart(call.partNumber, value ?? new Uint8Array(0), ssecOf(call.ssec));
        return sendJson(response, { etag: part.etag });
      }
      case 'completeMultipartUpload': {
        const parts = call.parts.map(({ etag, part }) => ({ partNumber: part, etag }));
        const object = await bucket.resumeMultipartUpload(call.object, call.uploadId).complete(parts);
        return sendJson(response, wireObject(object));
      }
      case 'abortMultipartUpload':
        await bucket.resumeMultipartUpload(call.object, call.uploadId).abort();
        return sendJson(response, {});
      default:
        throw new BindingRefusal(10001, `${String((call as { method?: unknown }).method)} is not a write of the binding.`);
    }
  }
}

/** The customer key (SSE-C) a call carries, as the bucket library takes it (hex). */
function ssecOf(ssec: { key: string } | undefined): { ssecKey: string } | Record<string, never> {
  return ssec === undefined ? {} : { ssecKey: ssec.key };
}

/** The key's MD5, base64, as the platform shows which key encrypted an object. */
function customerKeyMd5(hex: string): string {
  return createHash('md5').update(Buffer.from(hex, 'hex')).digest('base64');
}

/** The metadata (first `metadataSize` bytes) and the value that follows: read whole when small, a stream of known length otherwise. */
async function readCall(request: IncomingMessage, metadataSize: number, valueSize: number): Promise<{ metadata: Buffer; value: Uint8Array | ReadableStream | null }> {
  if (valueSize <= BUFFERED_VALUE) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const whole = Buffer.concat(chunks);
    if (whole.length !== metadataSize + valueSize) throw new BindingRefusal(10001, 'The call was cut off.');
    return { metadata: whole.subarray(0, metadataSize), value: valueSize === 0 && metadataSize === whole.length ? null : whole.subarray(metadataSize) };
  }
  const iterator = request[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let head = Buffer.alloc(0);
  while (head.length < metadataSize) {
    const next = await iterator.next();
    if (next.done) throw new BindingRefusal(10001, 'The call was cut off.');
    head = Buffer.concat([head, next.value]);
  }
  const rest = head.subarray(metadataSize);
  const stream = new ReadableStream({
    type: 'bytes',
    start(controller) {
      if (rest.length > 0) controller.enqueue(new Uint8Array(rest));
    },
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(new Uint8Array(next.value));
    },
    cancel() {
      request.destroy();
    },
  });
  declareStreamLength(stream, valueSize);
  return { metadata: head.subarray(0, metadataSize), value: stream };
}

function sendMetadata(response: ServerResponse, metadata: unknown): void {
  const json = Buffer.from(JSON.stringify(metadata));
  response.writeHead(200, { [METADATA_SIZE_HEADER]: String(json.length), 'content-length': String(json.length) });
  response.end(json);
}

function sendJson(response: ServerResponse, value: unknown): void {
  const json = Buffer.from(JSON.stringify(value));
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(json.length) });
  response.end(json);
}

async function sendObject(response: ServerResponse, object: StoredObjectBody, report: (line: string) => void): Promise<void> {
  const metadata = wireObject(object);
  const json = Buffer.from(JSON.stringify(metadata));
  const length = metadata.range?.length ?? object.size;
  response.writeHead(200, { [METADATA_SIZE_HEADER]: String(json.length), 'content-length': String(json.length + length) });
  if (length <= BUFFERED_VALUE) {
    response.end(Buffer.concat([json, await object.bytes()]));
    return;
  }
  response.write(json);
  await writeStreamedBody(response, object.body as unknown as ReadableStream<Uint8Array>, (error) =>
    report(`bucket binding read failed mid-body: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  );
}

function sendError(response: ServerResponse, error: WireError, object?: ReturnType<typeof wireObject>): void {
  // A header carries ASCII only: anything beyond stays JSON-escaped.
  const header = JSON.stringify({ version: 1, v4code: error.v4code, message: error.message }).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (object) {
    const json = Buffer.from(JSON.stringify(object));
    response.writeHead(error.status, { [ERROR_HEADER]: header, [METADATA_SIZE_HEADER]: String(json.length), 'content-length': String(json.length) });
    response.end(json);
    return;
  }
  response.writeHead(error.status, { [ERROR_HEADER]: header, 'content-length': '0' });
  response.end();
}

