/**
 * The platform's configuration file (`platform.toml`, or JSON with comments), in the spellings of
 * the platform's own tooling (wrangler's snake_case keys). Every key is optional: an empty file,
 * or none at all, runs the API and the S3 endpoint on their defaults.
 *
 * ```toml
 * [state]
 * data_dir = "./data"                  # relative to this file
 * database_url = "postgres://..."      # the API's store and the buckets in PostgreSQL (DATABASE_URL wins)
 * load = "platform.state"              # a state file loaded on a first start (STATE_FILE wins)
 *
 * [api]
 * port = 8787                          # 0: a free one
 * host = "127.0.0.1"
 *
 * [s3]
 * enabled = true
 * port = 8788
 * credentials_file = "s3-keys.env"     # ACCESS_KEY_ID=secret lines
 * access_keys = [{ id = "...", secret = "..." }]
 * public_read = ["assets"]
 * tls_cert = "s3.crt"                  # HTTPS with this certificate and key (PEM files)
 * tls_key = "s3.key"
 *
 * [edge]                               # zones' and deployed workers' traffic, routed by Host
 * enabled = true
 * port = 8789
 * cpu_ms = 30000                       # a request's CPU time before its worker is cut off
 * trusted_proxies = ["127.0.0.1"]      # their cf-connecting-ip / x-forwarded-for is believed
 * log_upload_seconds = 3               # a log push batch is written at most this long after its first entry
 *
 * [[edge.origins]]                     # a zone's origin (the stand-in for its DNS records)
 * hostname = "example.org"             # or "*.example.org"
 * upstream = "http://127.0.0.1:9000"
 *
 * [[edge.clients]]                     # what the platform knows of clients of an address range
 * range = "203.0.113.0/24"
 * country = "FR"
 * asn = 64500
 * bot_score = 3
 *
 * [[workers]]
 * config = "workers/site/wrangler.toml"
 * port = 8790
 *
 * [rate_limit]
 * enabled = true
 * requests = 1200
 * window_seconds = 300
 *
 * [[faults.api]]                       # the rules of a faults file, inline
 * match = { operationId = "listZones" }
 * status = 429
 * first = 2
 * ```
 */
import { z } from 'zod';
import { ConfigFileError, formatOfFile, parseConfigText, ProblemList, readTextFile } from '../config-files';

const shown = (value: unknown): string => (value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value)));

function must(what: string) {
  return { error: (issue: { input?: unknown }) => `must be ${what}, not ${shown(issue.input)}` };
}

function buildFileSchema() {
  const port = z.number(must('a port from 0 to 65535')).int(must('a port from 0 to 65535')).min(0, must('a port from 0 to 65535')).max(65535, must('a port from 0 to 65535'));
  const host = z.string(must('a host name or address')).min(1, must('a host name or address')).max(253, must('a host name or address'));
  const enabled = z.boolean(must('true or false'));
  const path = z.string(must('a file path')).min(1, must('a file path'));
  const positive = z.number(must('a whole number, at least 1')).int(must('a whole number, at least 1')).min(1, must('a whole number, at least 1'));
  const milliseconds = z.number(must('a whole number of milliseconds from 1 to 600000')).int(must('a whole number of milliseconds from 1 to 600000')).min(1, must('a whole number of milliseconds from 1 to 600000')).max(600_000, must('a whole number of milliseconds from 1 to 600000'));

  /** The S3 endpoint's access key rules (as `npm run s3` checks keys from the environment). */
  const accessKey = z.strictObject({
    id: z.string(must('3 to 128 letters, digits or _')).regex(/^[A-Za-z0-9_]{3,128}$/, must('3 to 128 letters, digits or _')),
    secret: z.string(must('a secret of at least 8 characters')).min(8, { error: 'must be a secret of at least 8 characters' }),
  });

  return z.strictObject({
    state: z
      .strictObject({
        data_dir: path.optional(),
        database_url: z.string(must('a postgres:// URL')).min(1, must('a postgres:// URL')).optional(),
        load: path.optional(),
      })
      .optional(),
    api: z.strictObject({ enabled: enabled.optional(), port: port.optional(), host: host.optional() }).optional(),
    s3: z
      .strictObject({
        enabled: enabled.optional(),
        port: port.optional(),
        host: host.optional(),
        credentials_file: path.optional(),
        access_keys: z.array(accessKey, must('a list of { id, secret }')).optional(),
        public_read: z.array(z.string(must('a bucket name')).min(1, must('a bucket name')), must('a list of bucket names')).optional(),
        region: z.string(must('a region name')).min(1, must('a region name')).optional(),
        account: z.string(must('an account id (32 lower-case hexadecimal characters)')).regex(/^[0-9a-f]{32}$/, must('an account id (32 lower-case hexadecimal characters)')).optional(),
        tls_cert: path.optional(),
        tls_key: path.optional(),
      })
      .optional(),
    edge: z
      .strictObject({
        enabled: enabled.optional(),
        port: port.optional(),
        host: host.optional(),
        // Checked further (ranges, URLs, field types) as the settings are resolved.
        origins: z
          .array(
            z.strictObject({
              hostname: z.string(must('a host name')).min(1, must('a host name')),
              upstream: z.string(must('an http:// or https:// URL')).min(1, must('an http:// or https:// URL')),
              connect_timeout_ms: milliseconds.optional(),
              response_timeout_ms: milliseconds.optional(),
            }),
            must('a list of [[edge.origins]] tables'),
          )
          .optional(),
        trusted_proxies: z.array(z.string(must('an address or range')).min(1, must('an address or range')), must('a list of addresses or ranges')).optional(),
        clients: z
          .array(
            z.strictObject({
              range: z.string(must('an address or range')).min(1, must('an address or range')),
              country: z.string(must('a two-letter country code')).regex(/^[A-Z0-9]{2}$/, must('a two-letter country code in upper case (FR, T1, XX)')).optional(),
              asn: z.number(must('an AS number')).int(must('an AS number')).min(0, must('an AS number')).max(4294967295, must('an AS number')).optional(),
              bot_score: z.number(must('a bot score from 1 to 99')).int(must('a bot score from 1 to 99')).min(1, must('a bot score from 1 to 99')).max(99, must('a bot score from 1 to 99')).optional(),
              fields: z.record(z.string(), z.unknown(), must('a table from rules-language field name to value')).optional(),
            }),
            must('a list of [[edge.clients]] tables'),
          )
          .optional(),
        log_upload_seconds: z.number(must('a number of seconds from 0.05 to 300')).min(0.05, must('a number of seconds from 0.05 to 300')).max(300, must('a number of seconds from 0.05 to 300')).optional(),
        cpu_ms: z
          .number(must('a whole number of milliseconds from 10 to 300000'))
          .int(must('a whole number of milliseconds from 10 to 300000'))
          .min(10, must('a whole number of milliseconds from 10 to 300000'))
          .max(300_000, must('a whole number of milliseconds from 10 to 300000'))
          .optional(),
      })
      .optional(),
    workers: z
      .array(
        z.strictObject({
          config: path,
          name: z.string(must('a name of letters, digits, - or _')).regex(/^[A-Za-z0-9_-]{1,63}$/, must('a name of letters, digits, - or _')).optional(),
          enabled: enabled.optional(),
          port: port.optional(),
          host: host.optional(),
        }),
        must('a list of [[workers]] tables'),
      )
      .optional(),
    rate_limit: z.strictObject({ enabled: enabled.optional(), requests: positive.optional(), window_seconds: positive.optional() }).optional(),
    // Checked by each face against what it serves (operationIds, S3 operations), before anything listens.
    faults: z.strictObject({ api: z.array(z.unknown(), must('a list of rules')).optional(), s3: z.array(z.unknown(), must('a list of rules')).optional() }).optional(),
  });
}

// Built on first use: a start without a configuration file neither builds it nor loads zod (see
// deferredPackagesPlugin in scripts/bundles.mjs).
let builtSchema: ReturnType<typeof buildFileSchema> | undefined;
const fileSchema = () => (builtSchema ??= buildFileSchema());

export type PlatformFile = z.output<ReturnType<typeof buildFileSchema>>;

/** The keys of each table, for the message that names an unknown one. */
const KEYS: Record<string, string> = {
  '': 'state, api, s3, edge, workers, rate_limit, faults',
  state: 'data_dir, database_url, load',
  api: 'enabled, port, host',
  s3: 'enabled, port, host, credentials_file, access_keys, public_read, region, account, tls_cert, tls_key',
  edge: 'enabled, port, host, origins, trusted_proxies, clients, log_upload_seconds, cpu_ms',
  origins: 'hostname, upstream, connect_timeout_ms, response_timeout_ms',
  clients: 'range, country, asn, bot_score, fields',
  workers: 'config, name, enabled, port, host',
  rate_limit: 'enabled, requests, window_seconds',
  faults: 'api, s3',
  access_keys: 'id, secret',
};

/** `workers[0].port`, from a zod issue's path. */
export function keyPath(parts: readonly PropertyKey[]): string {
  return parts.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('');
}

/** The names a configuration file is looked for under, in the working directory, when none is given. */
export const DEFAULT_FILES = ['platform.toml', 'platform.jsonc', 'platform.json'];

/** Reads and checks a configuration file; every problem at once, as a ConfigFileError. */
export function readPlatformFile(file: string): PlatformFile {
  const format = formatOfFile(file);
  if (format === undefined) return new ProblemList(file).fail('', 'the platform configuration is TOML (.toml) or JSON (.json, .jsonc), as the platform tooling writes configuration');
  const parsed = parseConfigText(readTextFile(file), file, format);
  const problems = new ProblemList(file);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) problems.fail('', `must hold a table of settings, not ${shown(parsed)}`);
  const checked = fileSchema().safeParse(parsed);
  if (checked.success) return checked.data;
  for (const issue of checked.error.issues) {
    const where = keyPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const table = String(issue.path.filter((part) => typeof part === 'string').at(-1) ?? '');
      for (const key of issue.keys) {
        problems.add(where === '' ? key : `${where}.${key}`, `unknown key${KEYS[table] ? ` (keys${table ? ` of ${table}` : ''}: ${KEYS[table]})` : ''}`);
      }
    } else {
      problems.add(where, issue.message);
    }
  }
  problems.throwIfAny();
  // Unreachable: a failed check has at least one issue.
  throw new ConfigFileError(file, [`${file}: cannot be read`]);
}
