/**
 * A request's headers as the endpoint reads them: names lower-case, a name sent twice read as its
 * values joined with ", ", iterated in name order, as WHATWG `Headers` answers them. Read from
 * Node's raw header lines into a Map: `Headers` checks every name and value again as it is
 * appended (Node's parser already refused what HTTP does not allow), which cost about five times
 * as much per request (`npm run bench -- s3`'s profile).
 */
import { invalidArgument } from './errors';

/** What reading a request's headers needs; `Headers` has it too, so either may be passed. */
export interface ReadHeaders extends Iterable<[string, string]> {
  get(name: string): string | null;
  has(name: string): boolean;
}

/** HTTP's whitespace around a value, which `Headers` removes. */
const SURROUNDING_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
/** What no header value may hold (Node's parser refuses it; a request made in-process might not). */
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;

const isWhitespace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

export class RequestHeaders implements ReadHeaders {
  /** The names, lower-case, in the order sent (a name sent twice, twice). */
  readonly names: string[] = [];
  readonly #values = new Map<string, string>();
  #sorted: [string, string][] | undefined;

  /** Reads Node's `rawHeaders` (name, value, name, value, ...); a value HTTP forbids is InvalidArgument. */
  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!;
      let value = raw[i + 1]!;
      if (value.length > 0 && (isWhitespace(value.charCodeAt(0)) || isWhitespace(value.charCodeAt(value.length - 1)))) {
        value = value.replace(SURROUNDING_WHITESPACE, '');
      }
      if (FORBIDDEN_IN_VALUE.test(value)) throw invalidArgument(`The header ${name} has a value that is not valid in HTTP.`, name);
      const lower = name.toLowerCase();
      this.names.push(lower);
      const earlier = this.#values.get(lower);
      this.#values.set(lower, earlier === undefined ? value : `${earlier}, ${value}`);
    }
  }

  get(name: string): string | null {
    const value = this.#values.get(name);
    if (value !== undefined) return value;
    const lower = name.toLowerCase();
    return lower === name ? null : (this.#values.get(lower) ?? null);
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  [Symbol.iterator](): Iterator<[string, string]> {
    this.#sorted ??= [...this.#values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return this.#sorted[Symbol.iterator]();
  }
}
