// How the platform settles ports, keys, the rate limit and fault rules from the file and the
// environment, before anything is opened (the process tests show the same from outside).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlatformConfigError, resolveSettings, workerVariable } from '../../src/platform/settings';
import { temporaryDirectory, withFiles } from './platform-process';

const WORKER = { 'w.mjs': 'export default { fetch: () => new Response("ok") };\n' };
const wrangler = (name: string) => `name = "${name}"\nmain = "w.mjs"\n`;

function settingsOf(toml: string, env: NodeJS.ProcessEnv = {}, files: Record<string, string> = {}) {
  const directory = withFiles({ ...WORKER, ...files });
  const file = path.join(directory, 'platform.toml');
  writeFileSync(file, toml);
  return { file, settings: () => resolveSettings(file, env) };
}

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof PlatformConfigError) return error.lines;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('ports', () => {
  it('gives components without a port the next numbers after the API, skipping given ones', () => {
    const { settings } = settingsOf('[s3]\n\n[[workers]]\nconfig = "a.toml"\n\n[[workers]]\nconfig = "b.toml"\nport = 8790\n\n[[workers]]\nconfig = "c.toml"\n', {}, {
      'a.toml': wrangler('a'),
      'b.toml': wrangler('b'),
      'c.toml': wrangler('c'),
    });
    const { api, s3, edge, workers } = settings();
    expect([api!.port, s3!.port, edge!.port, ...workers.map((worker) => worker.port)]).toEqual([8787, 8788, 8789, 8791, 8790, 8792]);
  });

  it('follows PORT, and picks free ports for all when PORT is 0', () => {
    const { settings } = settingsOf('[[workers]]\nconfig = "a.toml"\n', { PORT: '9000' }, { 'a.toml': wrangler('a') });
    expect([settings().api!.port, settings().s3!.port, settings().edge!.port, settings().workers[0]!.port]).toEqual([9000, 9001, 9002, 9003]);
    const zero = settingsOf('[[workers]]\nconfig = "a.toml"\nport = 7000\n', { PORT: '0' }, { 'a.toml': wrangler('a') }).settings();
    expect([zero.api!.port, zero.s3!.port, zero.edge!.port, zero.workers[0]!.port]).toEqual([0, 0, 0, 7000]);
  });

  it('puts the edge after the S3 endpoint, moved by EDGE_PORT and EDGE_HOST, turned off by enabled = false, its CPU limit checked', () => {
    const { settings } = settingsOf('[edge]\nport = 7000\ncpu_ms = 50\n', { EDGE_PORT: '7100', EDGE_HOST: '0.0.0.0' });
    const nothingElse = { origins: [], trustedProxies: [], clients: [], logUploadMs: 3000 };
    expect(settings().edge).toEqual({ port: 7100, host: '0.0.0.0', portFrom: 'EDGE_PORT', cpuMs: 50, ...nothingElse });
    expect(resolveSettings(undefined, {}).edge).toEqual({ port: 8789, host: '127.0.0.1', portFrom: 'default', cpuMs: 30_000, ...nothingElse });
    expect(settingsOf('[edge]\nenabled = false\n').settings().edge).toBeUndefined();
    const bad = settingsOf('[edge]\ncpu_ms = 5\nzones = 1\n');
    expect(problemsOf(bad.settings)).toEqual([
      `${bad.file}: edge.cpu_ms: must be a whole number of milliseconds from 10 to 300000, not 5`,
      `${bad.file}: edge.zones: unknown key (keys of edge: enabled, port, host, origins, trusted_proxies, clients, log_upload_seconds, cpu_ms)`,
    ]);
  });

  it('lets a worker variable, named after the worker, win over the file', () => {
    expect(workerVariable('image-resizer', 'PORT')).toBe('WORKER_IMAGE_RESIZER_PORT');
    const { settings } = settingsOf('[[workers]]\nconfig = "a.toml"\nport = 7000\nhost = "127.0.0.2"\n', { WORKER_A_PORT: '7100', WORKER_A_HOST: '0.0.0.0' }, { 'a.toml': wrangler('a') });
    expect(settings().workers[0]).toMatchObject({ name: 'a', port: 7100, host: '0.0.0.0', portFrom: 'WORKER_A_PORT' });
  });

  it('refuses a default pushed past 65535, two workers of one name, and every component off', () => {
    expect(problemsOf(() => resolveSettings(undefined, { PORT: '65535' }))).toEqual(['no default port is left above 65535 for the S3 endpoint: give it one', 'no default port is left above 65535 for the edge: give it one']);
    const { file, settings } = settingsOf('[api]\nenabled = false\n\n[s3]\nenabled = false\n\n[[workers]]\nconfig = "a.toml"\n\n[[workers]]\nconfig = "a.toml"\n', {}, { 'a.toml': wrangler('a') });
    expect(problemsOf(settings)).toEqual([`${file}: workers[1].name: "a" names workers[0] too; give each worker its own name`]);
    const off = settingsOf('[api]\nenabled = false\n\n[s3]\nenabled = false\n\n[edge]\nenabled = false\n');
    expect(problemsOf(off.settings)).toEqual([`${off.file}: every component is off: turn on the api, the s3 endpoint, the edge or a worker`]);
  });
});

describe('keys, state, the rate limit and fault rules', () => {
  it('takes S3 keys from the environment, a credentials file and the file together; refuses one given twice', () => {
    const { settings } = settingsOf('[s3]\ncredentials_file = "keys.env"\naccess_keys = [{ id = "inline_key", secret = "inline-secret" }]\n', { S3_ACCESS_KEY_ID: 'env_key', S3_SECRET_ACCESS_KEY: 'env-secret-1' }, {
      'keys.env': 'FILE_KEY=file-secret-1\n',
    });
    expect([...settings().s3!.accessKeys]).toEqual([
      ['env_key', 'env-secret-1'],
      ['FILE_KEY', 'file-secret-1'],
      ['inline_key', 'inline-secret'],
    ]);
    expect(settings().s3!.generatedKey).toBeUndefined();
    const twice = settingsOf('[s3]\naccess_keys = [{ id = "env_key", secret = "another-secret" }]\n', { S3_ACCESS_KEY_ID: 'env_key', S3_SECRET_ACCESS_KEY: 'env-secret-1' });
    expect(problemsOf(twice.settings)).toEqual([`${twice.file}: s3.access_keys[0].id: the access key id env_key is given twice`]);
    const short = settingsOf('[s3]\naccess_keys = [{ id = "k", secret = "short" }]\n');
    expect(problemsOf(short.settings)).toEqual([
      `${short.file}: s3.access_keys[0].id: must be 3 to 128 letters, digits or _, not "k"`,
      `${short.file}: s3.access_keys[0].secret: must be a secret of at least 8 characters`,
    ]);
  });

  it('serves S3 over HTTPS with the file\'s tls_cert and tls_key, or S3_TLS_CERT and S3_TLS_KEY; one alone or an unreadable file is a problem', () => {
    const files = { 's3.crt': 'CERTIFICATE', 's3.key': 'PRIVATE KEY' };
    const { settings } = settingsOf('[s3]\ntls_cert = "s3.crt"\ntls_key = "s3.key"\n', {}, files);
    expect(settings().s3!.tls).toEqual({ cert: Buffer.from('CERTIFICATE'), key: Buffer.from('PRIVATE KEY') });
    expect(settingsOf('[s3]\n').settings().s3!.tls).toBeUndefined();
    const alone = settingsOf('[s3]\ntls_cert = "s3.crt"\n', {}, files);
    expect(problemsOf(alone.settings)).toEqual([
      `${alone.file}: s3.tls_key: must be given too: HTTPS needs both the certificate and its private key (PEM files)`,
    ]);
    const missing = settingsOf('[s3]\ntls_cert = "s3.crt"\ntls_key = "nowhere.key"\n', {}, files);
    expect(problemsOf(missing.settings)).toEqual([
      `${missing.file}: s3.tls_key: cannot be read: ${path.join(path.dirname(missing.file), 'nowhere.key')} (ENOENT)`,
    ]);
    const fromEnvironment = settingsOf('[s3]\n', { S3_TLS_CERT: path.join(path.dirname(alone.file), 's3.crt') }, files);
    expect(problemsOf(fromEnvironment.settings)).toEqual([
      'S3_TLS_KEY must be given too: HTTPS needs both the certificate and its private key (PEM files)',
    ]);
  });

  it('resolves paths against the file, hands the API its settings as variables, and lets variables win', () => {
    const { file, settings } = settingsOf('[state]\ndata_dir = "state"\ndatabase_url = "postgres://localhost/edge"\n\n[rate_limit]\nrequests = 5\nwindow_seconds = 10\n');
    const resolved = settings();
    expect(resolved.dataDir).toBe(path.join(path.dirname(file), 'state'));
    expect(resolved.apiEnvironment).toMatchObject({ DATA_DIR: resolved.dataDir, DATABASE_URL: 'postgres://localhost/edge', RATE_LIMIT: 'true', RATE_LIMIT_REQUESTS: '5', RATE_LIMIT_WINDOW_SECONDS: '10', PORT: '8787' });
    const overridden = resolveSettings(file, { DATA_DIR: 'elsewhere', DATABASE_URL: 'postgres://db/other', RATE_LIMIT: 'false' });
    expect(overridden.dataDir).toBe(path.resolve('elsewhere'));
    expect(overridden.apiEnvironment).toMatchObject({ DATABASE_URL: 'postgres://db/other', RATE_LIMIT: 'false' });
    expect(overridden.apiEnvironment.RATE_LIMIT_REQUESTS).toBeUndefined();
    const off = settingsOf('[rate_limit]\nenabled = false\nrequests = 5\n').settings();
    expect(off.apiEnvironment.RATE_LIMIT).toBeUndefined();
  });

  it('takes fault rules from the file unless FAULTS_FILE names others', () => {
    const rules = withFiles({ 'faults.toml': '[[s3]]\nstatus = 503\n' });
    const { file, settings } = settingsOf('[[faults.api]]\nstatus = 429\n');
    expect(settings().faults).toEqual({ fromFile: true, api: { list: [{ status: 429 }], source: `${file}: faults` } });
    const fromVariable = resolveSettings(file, { FAULTS_FILE: path.join(rules, 'faults.toml') }).faults;
    expect(fromVariable).toEqual({ fromFile: false, s3: { list: [{ status: 503 }], source: `faults file ${path.join(rules, 'faults.toml')}` } });
    expect(problemsOf(() => resolveSettings(undefined, { FAULTS_FILE: path.join(temporaryDirectory(), 'none.toml') }))[0]).toMatch(/^FAULTS_FILE: .*none\.toml: cannot read the file \(ENOENT\)$/);
  });
});

describe('the edge\'s zones traffic', () => {
  it('reads origins, trusted proxies, the table of clients and the log upload interval', () => {
    const { settings } = settingsOf(
      '[edge]\ntrusted_proxies = ["127.0.0.1", "10.0.0.0/8"]\nlog_upload_seconds = 1.5\n\n' +
        '[[edge.origins]]\nhostname = "example.org"\nupstream = "http://127.0.0.1:9000"\nresponse_timeout_ms = 2000\n\n' +
        '[[edge.clients]]\nrange = "203.0.113.0/24"\ncountry = "FR"\nasn = 64500\nbot_score = 3\nfields = { "ip.src.region_code" = "IDF" }\n',
    );
    expect(settings().edge).toMatchObject({
      trustedProxies: ['127.0.0.1', '10.0.0.0/8'],
      logUploadMs: 1500,
      origins: [{ hostname: 'example.org', upstream: 'http://127.0.0.1:9000', responseTimeoutMs: 2000 }],
      clients: [{ range: '203.0.113.0/24', fields: { 'ip.src.region_code': 'IDF', 'ip.src.country': 'FR', 'ip.src.asnum': 64500, 'cf.bot_management.score': 3 } }],
    });
    expect(settingsOf('', { EDGE_LOG_UPLOAD_SECONDS: '0.2' }).settings().edge?.logUploadMs).toBe(200);
  });

  it('names every wrong entry by its key', () => {
    const bad = settingsOf(
      '[edge]\ntrusted_proxies = ["localhost"]\n\n' +
        '[[edge.origins]]\nhostname = "Example.org"\nupstream = "http://x"\n\n' +
        '[[edge.origins]]\nhostname = "example.net"\nupstream = "ftp://x"\n\n' +
        '[[edge.origins]]\nhostname = "example.com"\nupstream = "http://a"\n\n[[edge.origins]]\nhostname = "example.com"\nupstream = "http://b"\n\n' +
        '[[edge.clients]]\nrange = "203.0.113.0/33"\n\n' +
        '[[edge.clients]]\nrange = "198.51.100.0/24"\ncountry = "FR"\nfields = { "ip.src.asnum" = "AS1", "http.host" = "x", "no.such" = 1 }\n',
      { EDGE_LOG_UPLOAD_SECONDS: 'soon' },
    );
    const shape = settingsOf('[[edge.clients]]\nrange = "198.51.100.0/24"\ncountry = "fr"\nbot_score = 100\n');
    expect(problemsOf(shape.settings)).toEqual([
      `${shape.file}: edge.clients[0].country: must be a two-letter country code in upper case (FR, T1, XX), not "fr"`,
      `${shape.file}: edge.clients[0].bot_score: must be a bot score from 1 to 99, not 100`,
    ]);
    expect(problemsOf(bad.settings)).toEqual([
      `${bad.file}: edge.origins[0].hostname: must be a host name in lower case (example.org) or every name under one (*.example.org), not "Example.org"`,
      `${bad.file}: edge.origins[1].upstream: must be an http:// or https:// URL, not ftp:`,
      `${bad.file}: edge.origins[3].hostname: example.com is the hostname of edge.origins[2] too`,
      `${bad.file}: edge.trusted_proxies[0]: "localhost" is not an IPv4 or IPv6 address or range`,
      `${bad.file}: edge.clients[0].range: "203.0.113.0/33" is not an IPv4 or IPv6 address or range (such as 203.0.113.0/24)`,
      `${bad.file}: edge.clients[1].fields.ip.src.asnum: must be an integer (Int)`,
      `${bad.file}: edge.clients[1].fields.http.host: is derived from url; the request itself gives it`,
      `${bad.file}: edge.clients[1].fields.no.such: is not a field of the rules language`,
      'EDGE_LOG_UPLOAD_SECONDS must be a number of seconds from 0.05 to 300, not "soon"',
    ]);
  });
});
