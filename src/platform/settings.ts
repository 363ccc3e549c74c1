/**
 * What the platform runs and where: the configuration file, then the environment over it (a
 * variable always wins over the file, as `PORT` always meant the API's port), then defaults.
 * Every problem is collected, naming the file and key or the variable, so one run shows them
 * all; nothing has been opened or listens when they are reported.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigFileError, ProblemList } from '../config-files';
import { FaultRulesError, readRulesFile } from '../faults';
import { loadAccessKeys, S3ConfigError } from '../s3';
import { loadWorkerConfig, resolveSecrets } from '../worker';
import { type ClientEntry, type ContextValue, overrideProblem, parseRange } from '../judge';
import { DEFAULT_UPLOAD_INTERVAL_MS } from '../logpush';
import { originProblem, type OriginInput } from '../origin';
import { DEFAULT_FILES, readPlatformFile, type PlatformFile } from './config-file';

export const DEFAULT_API_PORT = 8787;
const DEFAULT_HOST = '127.0.0.1';

/** A listening component's address, and where its port was given (for messages about clashes). */
export interface Address {
  port: number;
  host: string;
  /** `PORT`, `s3.port in platform.toml`, or `default`. */
  portFrom: string;
}

export interface WorkerSettings extends Address {
  /** Unique among the workers: names the worker in /readyz, the start-up lines and its variables. */
  name: string;
  configFile: string;
  /** The worker module (absolute). */
  main: string;
}

export interface S3Settings extends Address {
  accessKeys: Map<string, string>;
  /** A key made up because none was given: printed once, never stored. */
  generatedKey: { id: string; secret: string } | undefined;
  publicRead: string[];
  region: string;
  account: string | undefined;
  /** HTTPS with this certificate and key (PEM), read at start; plain HTTP without. */
  tls: { cert: Buffer; key: Buffer } | undefined;
}

export interface EdgeSettings extends Address {
  /** Zones' origins by hostname (`[[edge.origins]]`). */
  origins: OriginInput[];
  /** Addresses and ranges whose `cf-connecting-ip` / `x-forwarded-for` is believed. */
  trustedProxies: string[];
  /** What the platform knows of clients, by address range (`[[edge.clients]]`). */
  clients: ClientEntry[];
  /** A log push batch is written at most this long after its first entry. */
  logUploadMs: number;
  /** A request's CPU time before its worker is cut off (the platform's default: 30 s). */
  cpuMs: number;
}

/** The platform's default CPU time per request, which a script's `limits.cpu_ms` may raise to 5 minutes there. */
export const DEFAULT_CPU_MS = 30_000;

export interface RuleList {
  list: unknown;
  /** Where the rules came from, as FaultRulesError names it. */
  source: string;
}

export interface PlatformSettings {
  /** The configuration file read, if any. */
  file: string | undefined;
  dataDir: string;
  /** PostgreSQL for the API's store and every component's buckets; the data directory otherwise. */
  databaseUrl: string | undefined;
  /** A state file (`npm run state -- export`) loaded when the store and the buckets are empty. */
  stateFile: string | undefined;
  api: Address | undefined;
  s3: S3Settings | undefined;
  /** The edge: deployed workers routed by Host. */
  edge: EdgeSettings | undefined;
  workers: WorkerSettings[];
  /** The environment the API's own configuration (`loadConfig`) reads, the file's settings filled in. */
  apiEnvironment: NodeJS.ProcessEnv;
  faults: { api?: RuleList; s3?: RuleList; fromFile: boolean };
}

/** Problems of the file and of the environment, every one on its own line. */
export class PlatformConfigError extends Error {
  override readonly name = 'PlatformConfigError';

  constructor(readonly lines: string[]) {
    super(lines.join('\n'));
  }
}

/** The configuration file to read: `--config`, else PLATFORM_CONFIG, else platform.toml (.jsonc, .json) here if present. */
export function findConfigFile(given: string | undefined, env: NodeJS.ProcessEnv, cwd = process.cwd()): string | undefined {
  const named = given ?? (env.PLATFORM_CONFIG || undefined);
  if (named !== undefined) return path.resolve(cwd, named);
  const present = DEFAULT_FILES.map((name) => path.join(cwd, name)).filter((file) => fs.existsSync(file));
  if (present.length > 1) throw new PlatformConfigError([`${present.join(' and ')} are both here: keep one, or choose with --config`]);
  return present[0];
}

/** The variables of a worker: `WORKER_<NAME>_PORT` and `_HOST`, the name upper-cased with - as _. */
export function workerVariable(name: string, what: 'PORT' | 'HOST'): string {
  return `WORKER_${name.toUpperCase().replace(/-/g, '_')}_${what}`;
}

export function resolveSettings(file: string | undefined, env: NodeJS.ProcessEnv): PlatformSettings {
  let written: PlatformFile = {};
  if (file !== undefined) {
    try {
      written = readPlatformFile(file);
    } catch (error) {
      if (error instanceof ConfigFileError) throw new PlatformConfigError(error.problems);
      throw error;
    }
  }
  const label = file ?? 'the configuration';
  const base = file === undefined ? process.cwd() : path.dirname(file);
  const inFile = (key: string) => `${key} in ${label}`;
  const problems = new ProblemList(label);
  const environmentProblems: string[] = [];

  const portOf = (variable: string, key: string, given: number | undefined): { port: number | undefined; from: string } => {
    const value = env[variable];
    if (value !== undefined && value !== '') {
      const n = Number(value);
      if (!/^[0-9]+$/.test(value) || n > 65535) {
        environmentProblems.push(`${variable} must be an integer from 0 to 65535, not "${value}"`);
        return { port: undefined, from: variable };
      }
      return { port: n, from: variable };
    }
    return given === undefined ? { port: undefined, from: 'default' } : { port: given, from: inFile(key) };
  };
  const hostOf = (variable: string, given: string | undefined) => env[variable] || given || DEFAULT_HOST;

  const dataDir = env.DATA_DIR ? path.resolve(env.DATA_DIR) : written.state?.data_dir ? path.resolve(base, written.state.data_dir) : path.resolve('data');

  // The API: PORT and HOST as ever.
  const apiOn = written.api?.enabled ?? true;
  const apiPort = portOf('PORT', 'api.port', written.api?.port);
  const api = apiOn ? { port: apiPort.port, host: hostOf('HOST', written.api?.host), portFrom: apiPort.from } : undefined;

  // The S3 endpoint, with its keys.
  const s3On = written.s3?.enabled ?? true;
  let s3: (Omit<S3Settings, 'port'> & { port: number | undefined }) | undefined;
  if (s3On) {
    const s3Port = portOf('S3_PORT', 's3.port', written.s3?.port);
    const keys = s3Keys(written, base, env, problems, environmentProblems);
    s3 = {
      port: s3Port.port,
      host: hostOf('S3_HOST', written.s3?.host),
      portFrom: s3Port.from,
      ...keys,
      publicRead: written.s3?.public_read ?? [],
      region: written.s3?.region ?? 'auto',
      account: written.s3?.account,
      tls: s3Tls(written, base, env, problems, environmentProblems),
    };
  }

  // The edge, where deployed workers answer.
  const edgeOn = written.edge?.enabled ?? true;
  let edge: (Omit<EdgeSettings, 'port'> & { port: number | undefined }) | undefined;
  if (edgeOn) {
    const edgePort = portOf('EDGE_PORT', 'edge.port', written.edge?.port);
    edge = {
      port: edgePort.port,
      host: hostOf('EDGE_HOST', written.edge?.host),
      portFrom: edgePort.from,
      cpuMs: written.edge?.cpu_ms ?? DEFAULT_CPU_MS,
      ...edgeJudging(written, env, problems, environmentProblems),
    };
  }

  // The workers, each checked as `npm run worker` checks it (file, main, secrets).
  const workers: (Omit<WorkerSettings, 'port'> & { port: number | undefined })[] = [];
  const names = new Map<string, number>();
  (written.workers ?? []).forEach((entry, index) => {
    if (entry.enabled === false) return;
    const key = `workers[${index}]`;
    const configFile = path.resolve(base, entry.config);
    let name = entry.name;
    let main: string;
    try {
      const config = loadWorkerConfig(configFile);
      resolveSecrets(config, env);
      name ??= config.name;
      main = config.main;
    } catch (error) {
      if (!(error instanceof ConfigFileError)) throw error;
      for (const line of error.problems) problems.add(`${key}.config`, line);
      return;
    }
    name ??= `worker-${index + 1}`;
    if (names.has(name)) {
      problems.add(`${key}.name`, `"${name}" names workers[${names.get(name)}] too; give each worker its own name`);
      return;
    }
    names.set(name, index);
    const port = portOf(workerVariable(name, 'PORT'), `${key}.port`, entry.port);
    workers.push({ name, configFile, main, port: port.port, host: hostOf(workerVariable(name, 'HOST'), entry.host), portFrom: port.from });
  });
  if (!api && !s3 && !edge && workers.length === 0 && file !== undefined) problems.add('', 'every component is off: turn on the api, the s3 endpoint, the edge or a worker');

  // Ports: the given ones first; a component without one takes the next free number after the
  // API's (8788, 8789, ...), so defaults never clash and a second platform needs only PORT; when
  // the API picks a free port (0), so does every component without its own.
  const given = [api, s3, edge, ...workers].filter((c): c is NonNullable<typeof c> => c !== undefined);
  const basePort = api?.port ?? DEFAULT_API_PORT;
  const taken = new Map<number, string>();
  for (const component of given) {
    if (component.port === undefined || component.port === 0) continue;
    const other = taken.get(component.port);
    if (other === undefined) {
      taken.set(component.port, component.portFrom);
      continue;
    }
    const reason = `${component.port} is the port of ${other} too; each component needs its own`;
    const key = component.portFrom.endsWith(` in ${label}`) ? component.portFrom.slice(0, -` in ${label}`.length) : undefined;
    if (key !== undefined) problems.add(key, reason);
    else environmentProblems.push(`${component.portFrom}: ${reason}`);
  }
  if (api && api.port === undefined) api.port = DEFAULT_API_PORT;
  let next = basePort;
  for (const component of given) {
    if (component.port !== undefined) continue;
    if (basePort === 0) {
      component.port = 0;
      continue;
    }
    do next += 1;
    while (taken.has(next));
    if (next > 65535) {
      environmentProblems.push(`no default port is left above ${basePort} for ${component === s3 ? 'the S3 endpoint' : component === edge ? 'the edge' : 'a worker'}: give it one`);
      component.port = 0;
      continue;
    }
    component.port = next;
    taken.set(next, 'default');
  }

  const faults = faultRules(written, env, label, environmentProblems);
  const lines = [...linesOf(problems), ...environmentProblems];
  if (lines.length > 0) throw new PlatformConfigError(lines);

  const apiEnvironment: NodeJS.ProcessEnv = { ...env, DATA_DIR: dataDir };
  if (api) {
    apiEnvironment.PORT = String(api.port);
    apiEnvironment.HOST = api.host;
  }
  const databaseUrl = env.DATABASE_URL || written.state?.database_url || undefined;
  if (databaseUrl) apiEnvironment.DATABASE_URL = databaseUrl;
  const stateFile = env.STATE_FILE ? path.resolve(env.STATE_FILE) : written.state?.load ? path.resolve(base, written.state.load) : undefined;
  const limit = written.rate_limit;
  // A [rate_limit] table turns the limit on unless it says enabled = false; RATE_LIMIT wins.
  if (limit && (env.RATE_LIMIT === undefined || env.RATE_LIMIT === '') && limit.enabled !== false) {
    apiEnvironment.RATE_LIMIT = 'true';
    if (limit.requests !== undefined && !env.RATE_LIMIT_REQUESTS) apiEnvironment.RATE_LIMIT_REQUESTS = String(limit.requests);
    if (limit.window_seconds !== undefined && !env.RATE_LIMIT_WINDOW_SECONDS) apiEnvironment.RATE_LIMIT_WINDOW_SECONDS = String(limit.window_seconds);
  }
  return {
    file,
    dataDir,
    databaseUrl,
    stateFile,
    api: api as Address | undefined,
    s3: s3 as S3Settings | undefined,
    edge: edge as EdgeSettings | undefined,
    workers: workers as WorkerSettings[],
    apiEnvironment,
    faults,
  };
}

function linesOf(problems: ProblemList): string[] {
  try {
    problems.throwIfAny();
    return [];
  } catch (error) {
    return (error as ConfigFileError).problems;
  }
}

/**
 * The S3 endpoint's certificate and key for HTTPS: S3_TLS_CERT and S3_TLS_KEY (both or neither;
 * they win), or the file's tls_cert and tls_key (relative to it). Read now: a file that cannot be
 * read is a problem reported with the others.
 */
function s3Tls(written: PlatformFile, base: string, env: NodeJS.ProcessEnv, problems: ProblemList, environmentProblems: string[]): S3Settings['tls'] {
  const fromEnvironment = env.S3_TLS_CERT !== undefined || env.S3_TLS_KEY !== undefined;
  const given = fromEnvironment
    ? { cert: env.S3_TLS_CERT, key: env.S3_TLS_KEY, where: { cert: 'S3_TLS_CERT', key: 'S3_TLS_KEY' }, at: process.cwd() }
    : { cert: written.s3?.tls_cert, key: written.s3?.tls_key, where: { cert: 's3.tls_cert', key: 's3.tls_key' }, at: base };
  if (given.cert === undefined && given.key === undefined) return undefined;
  const report = (where: string, text: string) => (fromEnvironment ? environmentProblems.push(`${where} ${text}`) : problems.add(where, text));
  if (!given.cert || !given.key) {
    report(given.cert ? given.where.key : given.where.cert, 'must be given too: HTTPS needs both the certificate and its private key (PEM files)');
    return undefined;
  }
  const read = (file: string, where: string) => {
    try {
      return fs.readFileSync(path.resolve(given.at, file));
    } catch (error) {
      report(where, `cannot be read: ${path.resolve(given.at, file)} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      return undefined;
    }
  };
  const cert = read(given.cert, given.where.cert);
  const key = read(given.key, given.where.key);
  return cert && key ? { cert, key } : undefined;
}

/**
 * The S3 endpoint's keys: S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY, the file's credentials_file
 * and access_keys, all of them; none at all makes one up, shown once.
 */
function s3Keys(written: PlatformFile, base: string, env: NodeJS.ProcessEnv, problems: ProblemList, environmentProblems: string[]): Pick<S3Settings, 'accessKeys' | 'generatedKey'> {
  const accessKeys = new Map<string, string>();
  const fromEnvironment = env.S3_ACCESS_KEY_ID !== undefined || env.S3_SECRET_ACCESS_KEY !== undefined;
  if (fromEnvironment) {
    try {
      for (const [id, secret] of loadAccessKeys({ S3_ACCESS_KEY_ID: env.S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: env.S3_SECRET_ACCESS_KEY })) accessKeys.set(id, secret);
    } catch (error) {
      if (!(error instanceof S3ConfigError)) throw error;
      environmentProblems.push(error.message);
    }
  }
  const credentialsFile = written.s3?.credentials_file;
  if (credentialsFile !== undefined) {
    try {
      for (const [id, secret] of loadAccessKeys({}, path.resolve(base, credentialsFile))) {
        if (accessKeys.has(id)) problems.add('s3.credentials_file', `the access key id ${id} is given twice`);
        accessKeys.set(id, secret);
      }
    } catch (error) {
      if (!(error instanceof S3ConfigError)) throw error;
      problems.add('s3.credentials_file', error.message);
    }
  }
  (written.s3?.access_keys ?? []).forEach(({ id, secret }, index) => {
    if (accessKeys.has(id)) problems.add(`s3.access_keys[${index}].id`, `the access key id ${id} is given twice`);
    accessKeys.set(id, secret);
  });
  if (accessKeys.size > 0) return { accessKeys, generatedKey: undefined };
  // An id as the platform's look (32 hexadecimal characters) and a 64-character secret.
  const generated = { id: randomBytes(16).toString('hex'), secret: randomBytes(32).toString('hex') };
  accessKeys.set(generated.id, generated.secret);
  return { accessKeys, generatedKey: generated };
}

/** How many seconds a log push batch may wait, unless the file or EDGE_LOG_UPLOAD_SECONDS says. */
export const DEFAULT_LOG_UPLOAD_SECONDS = DEFAULT_UPLOAD_INTERVAL_MS / 1000;

/** The edge's origins, trusted proxies, table of clients and log batching, each entry checked. */
function edgeJudging(
  written: PlatformFile,
  env: NodeJS.ProcessEnv,
  problems: ProblemList,
  environmentProblems: string[],
): Pick<EdgeSettings, 'origins' | 'trustedProxies' | 'clients' | 'logUploadMs'> {
  const origins: OriginInput[] = [];
  const hostnames = new Map<string, number>();
  (written.edge?.origins ?? []).forEach((origin, i) => {
    const problem = originProblem(origin);
    if (problem) return problems.add(`edge.origins[${i}].${problem.key}`, problem.message);
    const other = hostnames.get(origin.hostname);
    if (other !== undefined) return problems.add(`edge.origins[${i}].hostname`, `${origin.hostname} is the hostname of edge.origins[${other}] too`);
    hostnames.set(origin.hostname, i);
    origins.push({
      hostname: origin.hostname,
      upstream: origin.upstream,
      ...(origin.connect_timeout_ms === undefined ? {} : { connectTimeoutMs: origin.connect_timeout_ms }),
      ...(origin.response_timeout_ms === undefined ? {} : { responseTimeoutMs: origin.response_timeout_ms }),
    });
  });
  const trustedProxies = (written.edge?.trusted_proxies ?? []).filter((range, i) => {
    const parsed = parseRange(range);
    if (typeof parsed === 'string') problems.add(`edge.trusted_proxies[${i}]`, parsed);
    return typeof parsed !== 'string';
  });
  const clients: ClientEntry[] = [];
  (written.edge?.clients ?? []).forEach((client, i) => {
    const range = parseRange(client.range);
    if (typeof range === 'string') return problems.add(`edge.clients[${i}].range`, range);
    const fields: Record<string, ContextValue> = {};
    for (const [field, value] of Object.entries(client.fields ?? {})) {
      const problem = overrideProblem(field, value);
      if (problem) problems.add(`edge.clients[${i}].fields.${field}${problem.at}`, problem.message.replace('describe the request instead of overriding it', 'the request itself gives it'));
      else fields[field] = value as ContextValue;
    }
    if (client.country !== undefined) fields['ip.src.country'] = client.country;
    if (client.asn !== undefined) fields['ip.src.asnum'] = client.asn;
    if (client.bot_score !== undefined) fields['cf.bot_management.score'] = client.bot_score;
    clients.push({ range: client.range, fields });
  });
  let uploadSeconds = written.edge?.log_upload_seconds ?? DEFAULT_LOG_UPLOAD_SECONDS;
  const variable = env.EDGE_LOG_UPLOAD_SECONDS;
  if (variable !== undefined && variable !== '') {
    const seconds = Number(variable);
    if (!(seconds >= 0.05 && seconds <= 300)) environmentProblems.push(`EDGE_LOG_UPLOAD_SECONDS must be a number of seconds from 0.05 to 300, not "${variable}"`);
    else uploadSeconds = seconds;
  }
  return { origins, trustedProxies, clients, logUploadMs: Math.round(uploadSeconds * 1000) };
}

/** FAULTS_FILE wins over the file's [faults] (as every variable wins over the file). */
function faultRules(written: PlatformFile, env: NodeJS.ProcessEnv, label: string, environmentProblems: string[]): PlatformSettings['faults'] {
  if (env.FAULTS_FILE) {
    const rulesFile = path.resolve(env.FAULTS_FILE);
    try {
      const { api, s3 } = readRulesFile(rulesFile);
      const source = `faults file ${rulesFile}`;
      return { fromFile: false, ...(api ? { api: { list: api, source } } : {}), ...(s3 ? { s3: { list: s3, source } } : {}) };
    } catch (error) {
      if (error instanceof ConfigFileError) environmentProblems.push(...error.problems.map((line) => `FAULTS_FILE: ${line}`));
      else if (error instanceof FaultRulesError) environmentProblems.push(`FAULTS_FILE: ${error.message}`);
      else throw error;
      return { fromFile: false };
    }
  }
  const faults = written.faults;
  if (!faults) return { fromFile: false };
  return {
    fromFile: true,
    ...(faults.api ? { api: { list: faults.api, source: `${label}: faults` } } : {}),
    ...(faults.s3 ? { s3: { list: faults.s3, source: `${label}: faults` } } : {}),
  };
}
