/**
 * A worker upload's multipart form, read whole (it is bounded) before anything is checked or
 * stored: a form cut off half-way, or one without its closing boundary, is refused as it stands
 * and nothing is written. The official client sends its form with `Content-Type:
 * application/javascript`; the boundary is then the one its body starts with.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError, Codes, badRequest } from '../http/errors';

/** The largest form read (the modules' own limit, 10 MiB compressed, is checked after). */
export const MAX_FORM_BYTES = 64 * 1024 * 1024;

/** A request whose multipart form was read before validation (see read-form.ts). */
export interface FormRequest extends IncomingMessage {
  workerForm?: FormPart[];
}

export interface FormPart {
  name: string;
  filename: string | null;
  contentType: string | null;
  bytes: Buffer;
}

/** Reads the request's whole body, refusing more than `limit` bytes and a connection that drops. */
export async function readWholeBody(request: IncomingMessage, limit = MAX_FORM_BYTES): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? NaN);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let length = 0;
  await new Promise<void>((resolve, reject) => {
    let ended = false;
    request.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) {
        request.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      ended = true;
      resolve();
    });
    // A connection that closes before the body's end (the client went away): nothing is kept.
    request.on('close', () => {
      if (!ended) reject(badRequest('the upload was cut off before its end: nothing was stored', 10026));
    });
    request.on('error', (error) => reject(error));
  });
  if (!Number.isNaN(declared) && length !== declared) throw badRequest(`the upload ended after ${length} of its ${declared} bytes: nothing was stored`, 10026);
  return Buffer.concat(chunks, length);
}

function tooLarge(limit: number): ApiError {
  return ApiError.of(413, Codes.payloadTooLarge, `a worker upload is at most ${limit / 1024 / 1024} MiB`);
}

/** The boundary of a multipart body: the content type's, or (for `application/javascript`) the body's first line's. */
export function formBoundary(contentType: string | undefined, body: Buffer): string {
  const declared = /^multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  if (declared) return declared[1] ?? declared[2]!;
  const firstLine = body.subarray(0, Math.min(body.length, 200)).toString('latin1').split('\r\n', 1)[0] ?? '';
  if (firstLine.startsWith('--') && firstLine.length > 2 && firstLine.length <= 72) return firstLine.slice(2);
  throw badRequest('a worker is uploaded as a multipart form (multipart/form-data with a boundary): a `metadata` part and one part per module', 10026);
}

/** The parts of a multipart body; a body without its closing boundary is refused. */
export function parseForm(body: Buffer, boundary: string): FormPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at !== 0 && !(at > 0 && body.subarray(0, at).toString('latin1').trim() === '')) throw incomplete();
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString('latin1') === '--') return parts;
    if (body.subarray(at, at + 2).toString('latin1') !== '\r\n') throw incomplete();
    const headersEnd = body.indexOf('\r\n\r\n', at + 2);
    if (headersEnd < 0) throw incomplete();
    const headers = body.subarray(at + 2, headersEnd).toString('utf8').split('\r\n');
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), headersEnd + 4);
    if (next < 0) throw incomplete();
    parts.push(partOf(headers, body.subarray(headersEnd + 4, next)));
    at = next + 2;
  }
}

function incomplete(): ApiError {
  return badRequest('the multipart form is incomplete (no closing boundary): the upload was cut off, nothing was stored', 10026);
}

function partOf(headers: string[], bytes: Buffer): FormPart {
  let name: string | null = null;
  let filename: string | null = null;
  let contentType: string | null = null;
  for (const header of headers) {
    const colon = header.indexOf(':');
    const key = header.slice(0, colon).trim().toLowerCase();
    const value = header.slice(colon + 1).trim();
    if (key === 'content-disposition') {
      name = parameter(value, 'name');
      filename = parameter(value, 'filename');
    } else if (key === 'content-type') contentType = value;
  }
  if (name === null) throw badRequest('a part of the form has no name (Content-Disposition: form-data; name="...")', 10026);
  return { name, filename, contentType, bytes };
}

function parameter(disposition: string, key: string): string | null {
  const match = new RegExp(`(?:^|;)\\s*${key}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(disposition) ?? new RegExp(`(?:^|;)\\s*${key}=([^;\\s]+)`, 'i').exec(disposition);
  return match ? match[1]!.replace(/\\(.)/g, '$1') : null;
}

/**
 * The `metadata` of a form: one JSON part (wrangler), or `metadata[...]` fields in bracket
 * notation (the official client: `metadata[bindings][][name]`, a `[]` starting a new element
 * when the field it names is already set in the last one).
 */
export function formMetadata(parts: FormPart[]): unknown {
  const whole = parts.find((part) => part.name === 'metadata');
  if (whole) {
    try {
      return JSON.parse(whole.bytes.toString('utf8'));
    } catch (error) {
      throw badRequest(`the metadata part is not JSON: ${(error as Error).message}`, 10026);
    }
  }
  const fields = parts.filter((part) => part.name.startsWith('metadata['));
  if (fields.length === 0) return undefined;
  const root: Record<string, unknown> = {};
  for (const field of fields) assign(root, keysOf(field.name.slice('metadata'.length)), field.bytes.toString('utf8'));
  return root;
}

function keysOf(brackets: string): string[] {
  const keys = [...brackets.matchAll(/\[([^\]]*)\]/g)].map((match) => match[1]!);
  if (keys.join('').length + keys.length * 2 !== brackets.length) throw badRequest(`form field metadata${brackets} is not in bracket notation`, 10026);
  return keys;
}

function assign(target: Record<string, unknown> | unknown[], keys: string[], value: string): void {
  const [key, ...rest] = keys as [string, ...string[]];
  if (Array.isArray(target)) {
    const last = target[target.length - 1] as Record<string, unknown> | undefined;
    if (rest.length === 0) return void target.push(value);
    const nextKey = rest[0]!;
    const element = key === '' && last !== undefined && typeof last === 'object' && !(nextKey in last) ? last : {};
    if (element !== last) target.push(element);
    return assign(element, rest, value);
  }
  if (rest.length === 0) {
    target[key] = value;
    return;
  }
  const child = (target[key] ??= rest[0] === '' ? [] : {}) as Record<string, unknown> | unknown[];
  assign(child, rest, value);
}
