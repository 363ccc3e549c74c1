import { ApiError, Codes, badRequest, notFound } from './errors';
import type { DocumentWording } from './openapi-document';
import { condenseAlternatives, placeOf, type ValidatorItem } from './validator-errors';

interface ValidatorError {
  status: number;
  path?: string;
  message: string;
  errors?: { path: string; message: string }[];
  /** `Allow` on a 405. */
  headers?: Record<string, string>;
}

function isValidatorError(error: unknown): error is ValidatorError {
  return typeof error === 'object' && error !== null && typeof (error as ValidatorError).status === 'number' && 'errors' in error;
}

interface BodyParserError {
  type: string;
  status: number;
  message: string;
  /** The raw body, on parse failures. */
  body?: unknown;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as BodyParserError).type === 'string' && 'status' in error;
}

/** A body the parser could not read (e.g. not compressed as its Content-Encoding says). */
function isUnreadableBody(error: unknown): error is { message: string } {
  if (typeof error !== 'object' || error === null || 'errors' in error) return false;
  const status = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  return status === 400 && typeof (error as { code?: unknown }).code === 'string';
}

/**
 * The discriminator's complaints about its property (a rule's `action`), placed on that property
 * and naming its values: a value it does not map is worded as the mock (and any validator without
 * discriminator support) words an enum; no string there means the property is missing or mistyped.
 */
const TAG_COMPLAINTS: readonly [RegExp, (tag: string, values: string) => string][] = [
  [/^value of tag "(.+)" must be in oneOf$/, (tag, values) => `${tag} must be equal to one of the allowed values: ${values}`],
  [/^tag "(.+)" must be string$/, (tag, values) => `${tag} is missing or not a string; it must be one of: ${values}`],
];

/** A complaint with its place, in the document's own words where it has some. */
function describe(item: ValidatorItem, wording: DocumentWording): string {
  const where = placeOf(item.path);
  for (const [complaint, word] of TAG_COMPLAINTS) {
    const tag = complaint.exec(item.message)?.[1];
    const values = tag === undefined ? undefined : wording.tags.get(tag);
    if (values !== undefined) return `${where}/${word(tag!, values.join(', '))}`;
  }
  // The validator names a missing property in the place too (`body/name must have required
  // property 'name'`); the place is the object that lacks it, as the mock says.
  const missing = /^must have required property '(.+)'$/.exec(item.message)?.[1];
  if (missing !== undefined && where.endsWith(`/${missing}`)) return `${where.slice(0, -missing.length - 1)} ${item.message}`;
  const pattern = /^must match pattern "(.*)"$/.exec(item.message)?.[1];
  const message = (pattern && wording.patterns.get(pattern)) || item.message;
  return `${where} ${message}`;
}

/**
 * A body the JSON parser refused. Valid JSON that is not an object or array (`null`, `42`,
 * `"text"`) is refused too (every body of the API is an object), and said so.
 */
function malformedJson(error: BodyParserError): ApiError {
  const kind = typeof error.body === 'string' ? jsonKind(error.body) : undefined;
  const detail = kind === undefined ? error.message : `the body must be a JSON object, not ${kind}`;
  return badRequest(`Malformed JSON in request body: ${detail}`, Codes.malformedJson);
}

/** `null`, `number`, `string`... for valid JSON; undefined when the text does not parse. */
function jsonKind(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value === null ? 'null' : typeof value;
  } catch {
    return undefined;
  }
}

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The methods of an `Allow` list in one order, whatever order the validator found them in. */
function inMethodOrder(allow: string): string {
  const methods = allow.split(',').map((method) => method.trim().toUpperCase()).filter(Boolean);
  const rank = (method: string) => (METHOD_ORDER.includes(method) ? METHOD_ORDER.indexOf(method) : METHOD_ORDER.length);
  return methods.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0)).join(', ');
}

/**
 * Maps what the HTTP layer throws (the body parser's and the validator's errors) to the ApiError
 * the client sees; an ApiError passes as it is, and anything else is a 500.
 */
export function toApiError(error: unknown, request: { method: string; path: string }, wording: DocumentWording): ApiError {
  if (error instanceof ApiError) return error;
  if (isBodyParserError(error)) {
    if (error.type === 'entity.parse.failed') return malformedJson(error);
    if (error.type === 'entity.too.deep') return badRequest(error.message, Codes.malformedJson);
    if (error.type === 'entity.too.large') {
      // The parser's own limit: 1 MiB, or an assets manifest's 16 MiB.
      const limit = (error as { limit?: number }).limit;
      return ApiError.of(413, Codes.payloadTooLarge, `Request body is larger than ${limit === undefined ? 1 : Math.round(limit / 1024 / 1024)} MiB`);
    }
    if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
      return ApiError.of(415, Codes.unsupportedMediaType, `unsupported body encoding: ${error.message}`);
    }
  }
  if (isUnreadableBody(error)) return badRequest(`Malformed request body: ${error.message}`, Codes.malformedJson);
  if (isValidatorError(error)) {
    switch (error.status) {
      case 404:
        return notFound(request.path);
      case 405:
        return new ApiError(405, [{ code: Codes.methodNotAllowed, message: `Method ${request.method} not allowed on ${request.path}` }], {
          Allow: inMethodOrder(error.headers?.Allow ?? ''),
        });
      case 415:
        return ApiError.of(415, Codes.unsupportedMediaType, `unsupported media type: request bodies must be application/json`);
      case 413:
        return ApiError.of(413, Codes.payloadTooLarge, 'Request body is larger than 1 MiB');
      case 400:
        return new ApiError(
          400,
          condenseAlternatives(error.errors ?? [{ path: '', message: error.message }]).map((item) => ({
            code: Codes.invalidRequest,
            message: describe(item, wording),
          })),
        );
    }
  }
  return ApiError.of(500, Codes.internal, 'Internal error');
}
