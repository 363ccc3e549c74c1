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
    const summary = errors.map((e) => (e.code === undefined ? e.message : `${e.code}: ${e.message}`)).join('; ');
    super(`HTTP ${status}${summary ? `: ${summary}` : ''}`);
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
