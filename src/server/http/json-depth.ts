/**
 * Bounds the nesting of JSON request bodies before they are parsed: no body of the API nests
 * deeper than a dozen levels, while a 1 MiB body of brackets nests 500,000 deep and costs the
 * parser (and the validator after it) far more than its size suggests.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** What body-parser's `verify` throws; the error mapper answers it as malformed JSON (400). */
export class JsonTooDeepError extends Error {
  readonly type = 'entity.too.deep';
  readonly status = 400;
}

/**
 * Throws JsonTooDeepError when the JSON text in `body` nests objects and arrays deeper than
 * `limit`. One pass over the bytes, brackets inside strings ignored; whether the text is
 * valid JSON is left to the parser.
 */
export function refuseDeepJson(body: Uint8Array, limit = MAX_JSON_DEPTH): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > limit) {
        throw new JsonTooDeepError(`Malformed JSON in request body: nested deeper than ${limit} levels (at byte ${i})`);
      }
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    }
  }
}
