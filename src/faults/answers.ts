/**
 * What a failed request answers when a rule gives only a status: the real services' own bodies
 * where they are known, so a client's error handling meets what production sends.
 */
import { STATUS_CODES } from 'node:http';

export interface ApiErrorItem {
  code: number;
  message: string;
}

/**
 * The management API's answer to a user over its request budget (status 429), as the service
 * sends it today (seen in public reports since 2025; older reports show code 10100).
 */
export const RATE_LIMITED: ApiErrorItem = { code: 971, message: 'Please wait and consider throttling your request speed' };

/** The code the stand-in's own internal errors carry; the platform documents none for its 5xx. */
const INTERNAL_CODE = 10001;

/** The envelope errors for a status, when the platform's body for it is known; else undefined. */
export function defaultApiErrors(status: number): ApiErrorItem[] | undefined {
  if (status === 429) return [RATE_LIMITED];
  if (status === 500) return [{ code: INTERNAL_CODE, message: 'Internal error' }];
  if (status > 500) return [{ code: INTERNAL_CODE, message: STATUS_CODES[status] ?? 'Server error' }];
  return undefined;
}

/** S3 error codes a rule may name without a status, with the status and message S3 gives them. */
export const S3_ERRORS: Readonly<Record<string, { status: number; message: string }>> = {
  InternalError: { status: 500, message: 'We encountered an internal error. Please try again.' },
  SlowDown: { status: 503, message: 'Please reduce your request rate.' },
  ServiceUnavailable: { status: 503, message: 'Service is unable to handle request.' },
  RequestTimeout: {
    status: 400,
    message: 'Your socket connection to the server was not read from or written to within the timeout period.',
  },
  AccessDenied: { status: 403, message: 'Access Denied.' },
};

/** The S3 code a status alone stands for: 500 is InternalError, 503 is SlowDown (throttling). */
export const S3_CODE_BY_STATUS: Readonly<Record<number, string>> = { 500: 'InternalError', 503: 'SlowDown' };
