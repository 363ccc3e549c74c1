/** The bucket library's failures as the binding's wire errors (workerd then throws `<operation>: <message> (<code>)`). */
import { BucketCatalogueError, BucketError, storageTroubleAnswer } from '../../bucket';

export interface WireError {
  status: number;
  v4code: number;
  message: string;
}

/** Thrown for what the binding asked that this service cannot do. */
export class BindingRefusal extends Error {
  constructor(
    readonly v4code: number,
    message: string,
  ) {
    super(message);
  }
}

const INTERNAL = 'We encountered an internal error. Please try again.';

const STATUS_OF: Record<number, number> = { 10001: 500, 10006: 404, 10007: 404, 10031: 412, 10039: 416, 10043: 503, 10048: 500 };

/** The wire error for a failure, or undefined for one that is not the binding's to tell (then: internal). */
export function wireError(error: unknown): WireError | undefined {
  if (error instanceof BucketError) {
    // The library's message is "<operation>: <text> (<code>)"; the runtime adds the operation and code itself.
    const prefix = `${error.action}: `;
    const suffix = ` (${error.code})`;
    let text = error.message;
    if (text.startsWith(prefix)) text = text.slice(prefix.length);
    if (text.endsWith(suffix)) text = text.slice(0, -suffix.length);
    return { status: STATUS_OF[error.code] ?? 400, v4code: error.code, message: text };
  }
  if (error instanceof BucketCatalogueError) return { status: STATUS_OF[error.code] ?? 400, v4code: error.code, message: error.message };
  // Storage out of reach or full met outside a binding call (opening the bucket for one): the same answer.
  const trouble = storageTroubleAnswer(error);
  if (trouble) return { status: STATUS_OF[trouble.code] ?? 500, v4code: trouble.code, message: trouble.message };
  if (error instanceof BindingRefusal) return { status: STATUS_OF[error.v4code] ?? 400, v4code: error.v4code, message: error.message };
  // Argument mistakes the bucket library finds (workerd checks most of them before they come here).
  if (error instanceof TypeError || error instanceof RangeError) return { status: 400, v4code: 10029, message: error.message };
  return undefined;
}

export const internalError: WireError = { status: 500, v4code: 10001, message: INTERNAL };
export const noSuchKey: WireError = { status: 404, v4code: 10007, message: 'The specified key does not exist.' };
export const preconditionFailed: WireError = { status: 412, v4code: 10031, message: 'At least one of the pre-conditions you specified did not hold.' };
