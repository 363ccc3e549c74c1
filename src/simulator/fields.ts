/**
 * Where each field of the rules language gets its value in a simulation: from the request
 * description (and nowhere else), or from an override (geolocation, bot and threat scores...).
 * A few platform fields also have a default an override replaces: the timestamps, `cf.ray_id`,
 * and `cf.tls_version` / `cf.tls_cipher` over https (see context.ts).
 */

/** Fields built from the description, with the part of it a user changes instead. */
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

/** The deprecated `ip.geoip.*` fields carry the same values as their `ip.src.*` successors. */
export const GEOIP_ALIASES: ReadonlyMap<string, string> = new Map(
  ['asnum', 'continent', 'country', 'is_in_european_union', 'subdivision_1_iso_code', 'subdivision_2_iso_code'].map((name) => [
    `ip.geoip.${name}`,
    `ip.src.${name}`,
  ]),
);

function fieldsFrom(source: string, fields: string[]): [string, string][] {
  return fields.map((field) => [field, source]);
}
