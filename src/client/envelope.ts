import type { components } from '../../generated/api';

/** An error of the envelope; filter validation failures carry only a message. */
export type ErrorItem = { code?: number; message: string };

/** A failed call: the HTTP status and the envelope's errors (or the raw body when it is not an envelope). */
export class ApiError extends Error {
  readonly status: number;
  readonly errors: ErrorItem[];
  readonly body: unknown;

  constructor(status: number, body: unknown) {
    const errors = errorsOf(body);
    super(`HTTP ${status}: ${summaryOf(errors, body)}`);
    this.name = 'ApiError';
    this.status = status;
    this.errors = errors;
    this.body = body;
  }

  /** The codes of the envelope's errors, in order. */
  get codes(): number[] {
    return this.errors.flatMap((e) => (e.code === undefined ? [] : [e.code]));
  }
}

/**
 * The envelope's errors, or what came instead: a proxy's HTML page, plain text, an empty body,
 * or an envelope without errors (a 200 with `success: false`).
 */
function summaryOf(errors: ErrorItem[], body: unknown): string {
  if (errors.length > 0) return errors.map((e) => (e.code === undefined ? e.message : `${e.code}: ${e.message}`)).join('; ');
  if (body === undefined || body === null || body === '') return 'empty body';
  if (typeof body === 'string') {
    const text = body.replace(/\s+/g, ' ').trim();
    return `not an API envelope: ${text.length > 200 ? `${text.slice(0, 200)}...` : text}`;
  }
  return 'no errors given';
}

function errorsOf(body: unknown): ErrorItem[] {
  if (body && typeof body === 'object' && Array.isArray((body as { errors?: unknown }).errors)) {
    return ((body as { errors: unknown[] }).errors as ErrorItem[]).filter(
      (e) => e && typeof e === 'object' && typeof e.message === 'string',
    );
  }
  return [];
}

type Envelope = components['schemas']['Envelope'];

/** What an openapi-fetch call resolves to. */
export interface ApiResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The `result` of a successful call; throws ApiError for a failed one. */
export async function unwrap<T extends Partial<Envelope>>(
  call: Promise<ApiResult<T>>,
): Promise<T extends { result?: infer R } ? R : never> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined || data.success !== true) {
    throw new ApiError(response.status, error ?? data);
  }
  return data.result as T extends { result?: infer R } ? R : never;
}
