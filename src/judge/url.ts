/**
 * The request target as the client sent it and as the edge normalizes it. The WHATWG URL
 * parser resolves `..` and re-encodes characters, which would hide exactly what the raw
 * fields and the path-traversal rules look at, so the target is split by hand here.
 */

export type Scheme = 'http' | 'https';

export interface RequestTarget {
  scheme: Scheme;
  /** Lower-case host name (IDN in punycode), without port. */
  host: string;
  /** The port the client connected to: explicit, or the scheme's default. */
  port: number;
  /** Whether the URL named the port (a non-default one then shows in full_uri). */
  explicitPort: boolean;
  rawPath: string;
  /** The query without `?`; `null` when the URL has no `?`. */
  rawQuery: string | null;
  /** A fragment the URL carried: browsers never send it, so it plays no part. */
  droppedFragment: string | null;
}

const TARGET_PATTERN = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;
const DEFAULT_PORTS: Record<Scheme, number> = { http: 80, https: 443 };

/** Splits an absolute http(s) URL; answers a message when it is not one. */
export function parseTarget(url: string): RequestTarget | string {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https') return `scheme ${scheme} is not simulated (use http or https)`;
  const match = TARGET_PATTERN.exec(url);
  if (!match || scheme === undefined) return 'must be an absolute URL such as https://example.org/path?query';
  const authority = match[2]!;
  if (authority.includes('@')) return 'must not carry credentials (user:password@)';
  let parsed: URL;
  try {
    parsed = new URL(`${scheme}://${authority}/`);
  } catch {
    return `"${authority}" is not a valid host`;
  }
  if (parsed.hostname === '') return 'must name a host';
  const explicitPort = parsed.port !== '';
  return {
    scheme,
    host: parsed.hostname,
    port: explicitPort ? Number(parsed.port) : DEFAULT_PORTS[scheme],
    explicitPort,
    rawPath: encodeUnsendable(match[3] === '' ? '/' : match[3]!),
    rawQuery: match[4] === undefined ? null : encodeUnsendable(match[4]),
    droppedFragment: match[5] ?? null,
  };
}

/**
 * A client cannot put spaces, control characters or non-ASCII bytes in a request line: it
 * percent-encodes them (UTF-8). Everything else is sent as written, as `curl --path-as-is` does.
 */
function encodeUnsendable(text: string): string {
  return text.replace(/[\u0000-\u0020\u007f-\u{10ffff}]/gu, (char) =>
    [...new TextEncoder().encode(char)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

/** `host[:port]` as a client writes it in the Host header and the edge in full URIs. */
export function authorityOf(target: RequestTarget): string {
  const host = target.host.includes(':') && !target.host.startsWith('[') ? `[${target.host}]` : target.host;
  return target.explicitPort && target.port !== DEFAULT_PORTS[target.scheme] ? `${host}:${target.port}` : host;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** Characters RFC 3986 allows literally in a path besides the unreserved ones and `%`. */
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

/**
 * The path as the edge's default URL normalization leaves it (RFC 3986 normalization plus
 * the platform's own steps): backslashes become slashes, percent-encoded unreserved characters
 * are decoded and other escapes upper-cased, characters outside the URI grammar are
 * percent-encoded, successive slashes merge, and dot segments are removed. The query is untouched.
 */
export function normalizePath(rawPath: string): string {
  const slashed = rawPath.replace(/\\/g, '/');
  let encoded = '';
  for (let i = 0; i < slashed.length; i++) {
    const char = slashed[i]!;
    const escape = /^%[0-9A-Fa-f]{2}/.exec(slashed.slice(i, i + 3));
    if (escape) {
      const decoded = String.fromCharCode(Number.parseInt(escape[0].slice(1), 16));
      encoded += UNRESERVED.test(decoded) ? decoded : escape[0].toUpperCase();
      i += 2;
    } else if (UNRESERVED.test(char) || RESERVED.test(char)) {
      encoded += char;
    } else {
      encoded += `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return removeDotSegments(encoded.replace(/\/{2,}/g, '/'));
}

/** RFC 3986 section 5.2.4. */
function removeDotSegments(path: string): string {
  let input = path;
  const output: string[] = [];
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) {
      input = input.slice(3);
      output.pop();
    } else if (input === '/..') {
      input = '/';
      output.pop();
    } else if (input === '.' || input === '..') input = '';
    else {
      const next = input.indexOf('/', input.startsWith('/') ? 1 : 0);
      const segment = next === -1 ? input : input.slice(0, next);
      output.push(segment);
      input = input.slice(segment.length);
    }
  }
  return output.join('');
}

/** The lower-cased extension of the last path segment, without the dot (`""` when none). */
export function extensionOf(path: string): string {
  const segment = path.slice(path.lastIndexOf('/') + 1);
  const dot = segment.lastIndexOf('.');
  return dot === -1 ? '' : segment.slice(dot + 1).toLowerCase();
}

/** `name=value` pairs of a query string or form body, neither decoded nor changed. */
export function splitPairs(text: string): [string, string][] {
  if (text === '') return [];
  return text
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const at = pair.indexOf('=');
      return at === -1 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
    });
}
