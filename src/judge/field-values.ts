/**
 * Where each field of the rules language gets its value: from the request itself (and nowhere
 * else), or from what the platform knows beside it (geolocation, bot and threat scores...), which
 * the simulator's description and the edge's table of clients give as overrides, checked here
 * against the field's type. A few platform fields also have a default an override replaces: the
 * timestamps, `cf.ray_id`, and `cf.tls_version` / `cf.tls_cipher` over https (see context.ts).
 */
import { FIELD_TYPES, type FilterType, typeName } from '../filter';
import { isIpAddress } from './ip';


/** Fields built from the request, with the part of it (as a request description names it) a user changes instead. */
export const DERIVED_FIELDS: ReadonlyMap<string, string> = new Map([
  ...fieldsFrom('url', [
    'http.host', 'http.request.uri', 'http.request.uri.path', 'http.request.uri.path.extension', 'http.request.uri.query',
    'http.request.uri.args', 'http.request.uri.args.names', 'http.request.uri.args.values', 'http.request.full_uri',
    'raw.http.request.uri', 'raw.http.request.uri.path', 'raw.http.request.uri.path.extension', 'raw.http.request.uri.query',
    'raw.http.request.uri.args', 'raw.http.request.uri.args.names', 'raw.http.request.uri.args.values', 'raw.http.request.full_uri',
    'ssl', 'cf.edge.server_port',
  ]),
  ...fieldsFrom('method', ['http.request.method']),
  ...fieldsFrom('http_version', ['http.request.version']),
  ...fieldsFrom('headers', [
    'http.request.headers', 'http.request.headers.names', 'http.request.headers.values', 'http.request.headers.truncated',
    'http.user_agent', 'http.referer', 'http.x_forwarded_for', 'http.request.accepted_languages',
  ]),
  ...fieldsFrom('cookies', ['http.cookie', 'http.request.cookies']),
  ...fieldsFrom('body', [
    'http.request.body.raw', 'http.request.body.size', 'http.request.body.truncated', 'http.request.body.mime',
    'http.request.body.form', 'http.request.body.form.names', 'http.request.body.form.values',
    'http.request.body.multipart', 'http.request.body.multipart.names', 'http.request.body.multipart.values',
    'http.request.body.multipart.content_types', 'http.request.body.multipart.content_dispositions',
    'http.request.body.multipart.content_transfer_encodings', 'http.request.body.multipart.filenames',
  ]),
  ...fieldsFrom('client_ip', ['ip.src']),
  ...fieldsFrom('response', [
    'http.response.code', 'http.response.headers', 'http.response.headers.names', 'http.response.headers.values',
    'raw.http.response.headers', 'raw.http.response.headers.names', 'raw.http.response.headers.values',
    'http.response.content_type.media_type',
  ]),
  // The engine's `true` is a constant, not a request property.
  ['true', 'nothing (it is the constant true)'],
]);

function fieldsFrom(source: string, fields: string[]): [string, string][] {
  return fields.map((field) => [field, source]);
}

/** What is wrong with `value` as an override of `field` (`at` locates it inside the value: `[0]`, `["key"]`), or null. */
export function overrideProblem(field: string, value: unknown): { at: string; message: string } | null {
  const type = FIELD_TYPES.get(field);
  if (type === undefined) return { at: '', message: 'is not a field of the rules language' };
  const source = DERIVED_FIELDS.get(field);
  if (source !== undefined) return { at: '', message: `is derived from ${source}; describe the request instead of overriding it` };
  return mismatch(value, type);
}

/** Where inside a value it stops matching the type, or null when it matches. */
function mismatch(value: unknown, type: FilterType, at = ''): { at: string; message: string } | null {
  const expected = (what: string) => ({ at, message: `must be ${what} (${typeName(type)})` });
  switch (type) {
    case 'Bytes':
      return typeof value === 'string' ? null : expected('a string');
    case 'Int':
      return Number.isSafeInteger(value) ? null : expected('an integer');
    case 'Bool':
      return typeof value === 'boolean' ? null : expected('true or false');
    case 'Ip':
      return typeof value === 'string' && isIpAddress(value) ? null : expected('an IPv4 or IPv6 address');
  }
  if ('array' in type) {
    if (!Array.isArray(value)) return expected('an array');
    for (const [i, item] of value.entries()) {
      const problem = mismatch(item, type.array, `${at}[${i}]`);
      if (problem) return problem;
    }
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return expected('an object');
  for (const [key, item] of Object.entries(value)) {
    const problem = mismatch(item, type.map, `${at}[${JSON.stringify(key)}]`);
    if (problem) return problem;
  }
  return null;
}
