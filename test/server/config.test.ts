// The server's configuration from the environment and the scoped-credentials file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, sha256 } from '../../src/server';

const dir = mkdtempSync(path.join(os.tmpdir(), 'server-config-'));
function file(name: string, text: string): string {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
}
const hex = (secret: string) => sha256(secret).toString('hex');

describe('loadConfig', () => {
  it('defaults: port 8787, ./data, a generated token that works, response validation off', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8787);
    expect(config.dataDir).toBe(path.resolve('data'));
    expect(config.validateResponses).toBe(false);
    expect(config.generatedToken).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(config.credentials.findToken(config.generatedToken!)?.email).toBe('user@example.com');
    expect(config.credentials.findToken('anything else')).toBeNull();
  });

  it('takes the token, the key pair and the flags from the environment', () => {
    const config = loadConfig({ API_TOKEN: 'tok', API_EMAIL: 'me@example.com', API_KEY: 'key', PORT: '0', VALIDATE_RESPONSES: 'yes', LOG_LEVEL: 'warn' });
    expect(config.generatedToken).toBeUndefined();
    expect(config.credentials.findToken('tok')?.email).toBe('me@example.com');
    expect(config.credentials.findKey('ME@example.com', 'key')?.name).toBe('API_KEY');
    expect(config.credentials.findKey('me@example.com', 'tok')).toBeNull();
    expect(config).toMatchObject({ port: 0, validateResponses: true, logLevel: 'warn' });
  });

  it('HTTP limits: defaults, and each one from its variable', () => {
    expect(loadConfig({}).http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 4096 });
    const env = { HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '4000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '1500', HTTP_MAX_CONNECTIONS: '8' };
    expect(loadConfig(env).http).toEqual({ headersTimeoutMs: 2000, requestTimeoutMs: 4000, keepAliveTimeoutMs: 1500, maxConnections: 8 });
  });

  it.each([
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535, not "70000"'],
    [{ VALIDATE_RESPONSES: 'maybe' }, 'VALIDATE_RESPONSES must be true or false, not "maybe"'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "loud"'],
    [{ API_EMAIL: 'me@example.com' }, 'API_EMAIL is set without API_KEY: the key scheme needs both'],
    [{ HTTP_REQUEST_TIMEOUT_MS: '0' }, 'HTTP_REQUEST_TIMEOUT_MS must be a positive whole number, not "0"'],
    [{ HTTP_MAX_CONNECTIONS: 'many' }, 'HTTP_MAX_CONNECTIONS must be a positive whole number, not "many"'],
    [
      { HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' },
      'HTTP_HEADERS_TIMEOUT_MS (20000) must not exceed HTTP_REQUEST_TIMEOUT_MS (10000): the headers are part of the request',
    ],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('the auth file', () => {
  it('adds scoped tokens and keys by hash', () => {
    const auth = file(
      'auth.yaml',
      `tokens:\n  - name: ci\n    sha256: ${hex('ci-token')}\n    zones: [9d6991f5ca85bf43524971c922c4bcfc]\nkeys:\n  - email: jane.doe@example.com\n    sha256: ${hex('jane-key')}\n    accounts: [023e105f4ecef8ad9ca31a8372d0c353]\n`,
    );
    const { credentials } = loadConfig({ API_TOKEN: 'main', AUTH_FILE: auth });
    const ci = credentials.findToken('ci-token')!;
    expect(ci.name).toBe('ci');
    expect([...ci.scope.zones!]).toEqual(['9d6991f5ca85bf43524971c922c4bcfc']);
    expect([...ci.scope.accounts!]).toEqual([]);
    const jane = credentials.findKey('jane.doe@example.com', 'jane-key')!;
    expect(jane.email).toBe('jane.doe@example.com');
    expect([...jane.scope.accounts!]).toEqual(['023e105f4ecef8ad9ca31a8372d0c353']);
    expect(credentials.size).toBe(3);
  });

  it.each([
    ['tokens:\n  - name: ci\n    sha256: abc\n', 'tokens.0.sha256 must be the 64 hex characters of a SHA-256'],
    [`tokens:\n  - name: ci\n    sha256: ${'a'.repeat(64)}\n    token: plain\n`, 'tokens.0'],
    [`tokens:\n  - name: ci\n    sha256: ${'a'.repeat(64)}\n    zones: [nope]\n`, 'tokens.0.zones.0 must be a 32-hex identifier'],
    ['users: []\n', '(root)'],
    ['tokens: [\n', 'cannot read the auth file'],
  ])('refuses %j, naming the entry', (text, message) => {
    const auth = file(`bad-${Math.random()}.yaml`, text);
    expect(() => loadConfig({ API_TOKEN: 'x', AUTH_FILE: auth })).toThrow(message);
  });

  it('names a missing file', () => {
    expect(() => loadConfig({ API_TOKEN: 'x', AUTH_FILE: path.join(dir, 'missing.yaml') })).toThrow(/cannot read the auth file .*missing\.yaml/);
  });
});

describe('rate limit and faults settings', () => {
  it('the rate limit is off by default, and RATE_LIMIT turns on the platform limit', () => {
    expect(loadConfig({}).rateLimit).toBeUndefined();
    expect(loadConfig({ RATE_LIMIT: 'false' }).rateLimit).toBeUndefined();
    expect(loadConfig({ RATE_LIMIT: 'true' }).rateLimit).toEqual({ requests: 1200, windowSeconds: 300 });
    expect(loadConfig({ RATE_LIMIT: '1', RATE_LIMIT_REQUESTS: '10', RATE_LIMIT_WINDOW_SECONDS: '2' }).rateLimit).toEqual({ requests: 10, windowSeconds: 2 });
  });

  it.each([
    [{ RATE_LIMIT_REQUESTS: '10' }, 'RATE_LIMIT_REQUESTS is set without RATE_LIMIT=true: the rate limit is off'],
    [{ RATE_LIMIT: 'true', RATE_LIMIT_WINDOW_SECONDS: '0' }, 'RATE_LIMIT_WINDOW_SECONDS must be a positive whole number, not "0"'],
    [{ RATE_LIMIT: 'true', RATE_LIMIT_REQUESTS: '1.5' }, 'RATE_LIMIT_REQUESTS must be a positive whole number, not "1.5"'],
    [{ RATE_LIMIT: 'maybe' }, 'RATE_LIMIT must be true or false, not "maybe"'],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('FAULTS_FILE is resolved from the working directory', () => {
    expect(loadConfig({}).faultsFile).toBeUndefined();
    expect(loadConfig({ FAULTS_FILE: 'ci/faults.yaml' }).faultsFile).toBe(path.resolve('ci/faults.yaml'));
  });
});
