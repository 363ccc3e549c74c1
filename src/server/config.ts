import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { PLATFORM_POLICY, type RateLimitPolicy } from '../rate-limit';
import { parseDatabaseUrl, SECRETS_KEY_VARIABLE, SecretBox, type DatabaseUrl, type PostgresPoolOptions } from '../store';
import { loadAuthFile } from './auth/auth-file';
import { CredentialRegistry, everything, sha256 } from './auth/credentials';
import { connectionLimitsFrom, type ConnectionLimits } from '../http-connections';

/** The seeded default user: the owner of the default token and key unless API_EMAIL says otherwise. */
export const DEFAULT_USER_EMAIL = 'user@example.com';

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL when DATABASE_URL is set; otherwise the SQLite store under dataDir. */
  postgres: PostgresConfig | undefined;
  seedFile: string | undefined;
  logLevel: string;
  validateResponses: boolean;
  http: ConnectionLimits;
  credentials: CredentialRegistry;
  /**
   * S3 access keys temporary credentials may derive from (`S3_ACCESS_KEY_ID` +
   * `S3_SECRET_ACCESS_KEY`, as `npm run s3` reads them): kept in memory only.
   */
  s3AccessKeys: Map<string, string>;
  /** A token generated because API_TOKEN was unset: printed once at start-up, never stored. */
  generatedToken: string | undefined;
  /** STATE_FILE: a state file (`npm run state -- export`) loaded at start when the store and buckets are empty. */
  stateFile: string | undefined;
  /** FAULTS_FILE: fault rules to start with (its `api` list). */
  faultsFile: string | undefined;
  /** The platform's rate limit, when RATE_LIMIT is on. */
  rateLimit: RateLimitPolicy | undefined;
  /**
   * WORKERS_SECRETS_KEY: the key workers' secrets are sealed with (kept in memory only); unset,
   * the data directory's key file (made once, owner-only).
   */
  workersSecretsKey: string | undefined;
}

export interface PostgresConfig {
  url: DatabaseUrl;
  pool: PostgresPoolOptions;
}

/** Pool settings by environment variable; unset ones keep the store's defaults. */
const poolVariables = {
  DATABASE_POOL_MAX: 'maxConnections',
  DATABASE_POOL_IDLE_TIMEOUT_MS: 'idleTimeoutMs',
  DATABASE_CONNECT_TIMEOUT_MS: 'connectionTimeoutMs',
  DATABASE_LOCK_TIMEOUT_MS: 'lockTimeoutMs',
} as const satisfies Record<string, keyof PostgresPoolOptions>;

function postgres(env: NodeJS.ProcessEnv): PostgresConfig | undefined {
  const pool: PostgresPoolOptions = {};
  for (const [name, option] of Object.entries(poolVariables)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    if (!env.DATABASE_URL) throw new Error(`${name} is set without DATABASE_URL: pool settings apply to PostgreSQL only`);
    const n = Number(value);
    if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, not "${value}"`);
    pool[option] = n;
  }
  return env.DATABASE_URL ? { url: parseDatabaseUrl(env.DATABASE_URL, 'DATABASE_URL'), pool } : undefined;
}

/** RATE_LIMIT turns the platform's limit on; RATE_LIMIT_REQUESTS and RATE_LIMIT_WINDOW_SECONDS tune it. */
function rateLimit(env: NodeJS.ProcessEnv): RateLimitPolicy | undefined {
  const on = flag(env.RATE_LIMIT, 'RATE_LIMIT', false);
  const policy = { ...PLATFORM_POLICY };
  for (const [name, field] of [
    ['RATE_LIMIT_REQUESTS', 'requests'],
    ['RATE_LIMIT_WINDOW_SECONDS', 'windowSeconds'],
  ] as const) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    if (!on) throw new Error(`${name} is set without RATE_LIMIT=true: the rate limit is off`);
    const n = Number(value);
    if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, not "${value}"`);
    policy[field] = n;
  }
  return on ? policy : undefined;
}

function flag(value: string | undefined, name: string, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new Error(`${name} must be true or false, not "${value}"`);
}

function port(value: string | undefined): number {
  if (value === undefined || value === '') return 8787;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`PORT must be an integer from 0 to 65535, not "${value}"`);
  return n;
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads the server's configuration from the environment; throws a readable error for bad values. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const credentials = new CredentialRegistry();
  const email = env.API_EMAIL?.trim() || DEFAULT_USER_EMAIL;
  const generatedToken = env.API_TOKEN ? undefined : randomBytes(30).toString('base64url');
  credentials.addToken(sha256(env.API_TOKEN || generatedToken!), { name: 'API_TOKEN', email, scope: everything });
  if (env.API_KEY) {
    credentials.addKey(email, sha256(env.API_KEY), { name: 'API_KEY', email, scope: everything });
  } else if (env.API_EMAIL) {
    throw new Error('API_EMAIL is set without API_KEY: the key scheme needs both');
  }
  if (env.AUTH_FILE) loadAuthFile(env.AUTH_FILE, credentials);

  const s3AccessKeys = new Map<string, string>();
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
    throw new Error('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together: set both or neither');
  }
  if (env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY) s3AccessKeys.set(env.S3_ACCESS_KEY_ID, env.S3_SECRET_ACCESS_KEY);

  const logLevel = env.LOG_LEVEL || 'info';
  if (!logLevels.includes(logLevel)) throw new Error(`LOG_LEVEL must be one of ${logLevels.join(', ')}, not "${logLevel}"`);
  return {
    port: port(env.PORT),
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.DATA_DIR || 'data'),
    postgres: postgres(env),
    seedFile: env.SEED_FILE ? path.resolve(env.SEED_FILE) : undefined,
    logLevel,
    validateResponses: flag(env.VALIDATE_RESPONSES, 'VALIDATE_RESPONSES', false),
    http: connectionLimitsFrom(env),
    credentials,
    s3AccessKeys,
    generatedToken,
    stateFile: env.STATE_FILE ? path.resolve(env.STATE_FILE) : undefined,
    faultsFile: env.FAULTS_FILE ? path.resolve(env.FAULTS_FILE) : undefined,
    rateLimit: rateLimit(env),
    workersSecretsKey: workersSecretsKey(env),
  };
}

/** The key as given, checked now so that a bad one stops the start before anything opens. */
function workersSecretsKey(env: NodeJS.ProcessEnv): string | undefined {
  const value = env[SECRETS_KEY_VARIABLE];
  if (value === undefined || value === '') return undefined;
  SecretBox.fromText(value, SECRETS_KEY_VARIABLE);
  return value;
}
