import { resolve } from 'node:path';
import type { ProblemList } from '../../config-files';
import { identifierProblem } from './identifiers';
import { describeValue, isTable, keyPath, type Table } from './values';
import type { BucketBinding, VarValue, WorkerConfig } from './worker-config';

const SUPPORTED_KEYS = [
  'name',
  'main',
  'account_id',
  'compatibility_date',
  'compatibility_flags',
  'vars',
  'r2_buckets',
  'secrets',
];

/** The editor schema reference of JSON configuration files; it means nothing to the host. */
const SCHEMA_KEY = '$schema';

/**
 * Keys of the platform that only matter when deploying (routes, observability, ...). Existing
 * files carry them, so they are accepted and reported as ignored rather than refused.
 */
const DEPLOYMENT_ONLY_KEYS = new Set([
  'workers_dev',
  'preview_urls',
  'route',
  'routes',
  'observability',
  'logpush',
  'placement',
  'limits',
  'upload_source_maps',
  'keep_vars',
  'send_metrics',
  'tail_consumers',
]);

const BUCKET_ENTRY_KEYS = ['binding', 'bucket_name', 'preview_bucket_name', 'jurisdiction'];
/** The platform's bucket naming rule, the one the data directory's catalogue applies. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
const BUCKET_NAME_RULE = '3 to 63 lower-case letters, digits and hyphens, neither starting nor ending with a hyphen';
const COMPATIBILITY_FLAG = /^[a-z0-9_]+$/;
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Checks a parsed configuration and turns it into a `WorkerConfig`. Every problem found is added
 * to `problems` (with its key path); the result is only meaningful when none was.
 */
export function validateConfig(value: unknown, file: string, problems: ProblemList, today: Date): WorkerConfig {
  const config: WorkerConfig = { file, main: '', compatibilityFlags: [], vars: {}, buckets: [], ignoredKeys: [] };
  if (!isTable(value)) {
    problems.add('', `the configuration must be a table (an object) at the top level, not ${describeValue(value)}`);
    return config;
  }
  for (const key of Object.keys(value)) {
    if (SUPPORTED_KEYS.includes(key) || key === SCHEMA_KEY) continue;
    if (DEPLOYMENT_ONLY_KEYS.has(key)) config.ignoredKeys.push(key);
    else {
      problems.add(
        keyPath('', key),
        `unknown key; this host reads ${SUPPORTED_KEYS.join(', ')} (other bindings and environments are not supported)`,
      );
    }
  }
  const at = new Checker(problems);
  const name = at.optionalString(value, '', 'name');
  if (name !== undefined) config.name = name;
  const main = at.optionalString(value, '', 'main');
  if (main === undefined) {
    if (!('main' in value)) problems.add('main', 'missing: the path of the module worker to serve, relative to this file');
  } else {
    config.main = resolve(file, '..', main);
  }
  const accountId = at.optionalString(value, '', 'account_id');
  // The account picks whose buckets the bindings name (bucket names are per account).
  if (accountId !== undefined && !/^[0-9a-f]{32}$/.test(accountId)) {
    problems.add('account_id', `${JSON.stringify(accountId)} is not an account id (32 lower-case hexadecimal characters)`);
  } else if (accountId !== undefined) config.accountId = accountId;
  const date = compatibilityDate(value.compatibility_date, problems, today);
  if (date !== undefined) config.compatibilityDate = date;
  config.compatibilityFlags = at.nameList(value.compatibility_flags, 'compatibility_flags', COMPATIBILITY_FLAG, 'a compatibility flag name (lower-case letters, digits and _)');
  config.vars = vars(value.vars, problems);
  const buckets = bucketBindings(value.r2_buckets, at);
  config.buckets = buckets.map(({ binding }) => binding);
  const secrets = requiredSecrets(value.secrets, at);
  if (secrets !== undefined) config.requiredSecrets = secrets;
  reportNameClashes(config, buckets, problems);
  return config;
}

/** Type checks that report to the problem list and answer undefined on a mismatch. */
class Checker {
  constructor(readonly problems: ProblemList) {}

  optionalString(table: Table, parent: string, key: string): string | undefined {
    const value = table[key];
    if (value === undefined) return undefined;
    if (typeof value === 'string' && value !== '') return value;
    this.problems.add(keyPath(parent, key), `must be a non-empty string, not ${describeValue(value)}`);
    return undefined;
  }

  /** An array of distinct names, each matching `pattern`. */
  nameList(value: unknown, path: string, pattern: RegExp, what: string): string[] {
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.problems.add(path, `must be an array of strings, not ${describeValue(value)}`);
      return [];
    }
    const names: string[] = [];
    value.forEach((item: unknown, index) => {
      const itemPath = keyPath(path, index);
      if (typeof item !== 'string') this.problems.add(itemPath, `must be a string, not ${describeValue(item)}`);
      else if (!pattern.test(item)) this.problems.add(itemPath, `${JSON.stringify(item)} is not ${what}`);
      else if (names.includes(item)) this.problems.add(itemPath, `${JSON.stringify(item)} is listed twice`);
      else names.push(item);
    });
    return names;
  }

  unknownKeys(table: Table, path: string, known: string[]): void {
    for (const key of Object.keys(table)) {
      if (!known.includes(key)) this.problems.add(keyPath(path, key), `unknown key; an entry here has ${known.join(', ')}`);
    }
  }
}

function compatibilityDate(value: unknown, problems: ProblemList, today: Date): string | undefined {
  if (value === undefined) return undefined;
  if (value instanceof Date) {
    problems.add('compatibility_date', 'must be a string: quote the date, as in compatibility_date = "2024-09-23"');
    return undefined;
  }
  if (typeof value !== 'string' || !isCalendarDate(value)) {
    problems.add('compatibility_date', `must be a date written "YYYY-MM-DD", not ${describeValue(value)}`);
    return undefined;
  }
  const latest = today.toISOString().slice(0, 10);
  if (value > latest) {
    // The platform refuses dates it cannot know the behaviour of yet.
    problems.add('compatibility_date', `${value} is in the future (today is ${latest})`);
    return undefined;
  }
  return value;
}

function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function vars(value: unknown, problems: ProblemList): Record<string, VarValue> {
  if (value === undefined) return {};
  if (!isTable(value)) {
    problems.add('vars', `must be a table of names and values, not ${describeValue(value)}`);
    return {};
  }
  const result: Record<string, VarValue> = {};
  for (const [name, item] of Object.entries(value)) {
    const path = keyPath('vars', name);
    const problem = notJson(item);
    if (name === '') problems.add(path, 'a var needs a non-empty name');
    else if (problem) problems.add(path, problem);
    else result[name] = item as VarValue;
  }
  return result;
}

/** Why a var value cannot reach the worker (vars are text or JSON values), or undefined. */
function notJson(value: unknown): string | undefined {
  if (value instanceof Date) return 'a TOML date is not a JSON value: quote it to pass it as text';
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${value} is not a JSON number`;
  if (Array.isArray(value)) return value.map(notJson).find((problem) => problem !== undefined);
  if (isTable(value)) return Object.values(value).map(notJson).find((problem) => problem !== undefined);
  return `${describeValue(value)} is not a JSON value`;
}

/** A checked binding and where it is in the file. */
interface PlacedBinding {
  binding: BucketBinding;
  path: string;
}

function bucketBindings(value: unknown, at: Checker): PlacedBinding[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    at.problems.add('r2_buckets', `must be an array of tables ([[r2_buckets]]), not ${describeValue(value)}`);
    return [];
  }
  const bindings: PlacedBinding[] = [];
  value.forEach((entry: unknown, index) => {
    const path = keyPath('r2_buckets', index);
    if (!isTable(entry)) {
      at.problems.add(path, `must be a table with binding and bucket_name, not ${describeValue(entry)}`);
      return;
    }
    at.unknownKeys(entry, path, BUCKET_ENTRY_KEYS);
    const binding = requiredField(entry, path, 'binding', at, 'the name the worker sees the bucket under (env.<binding>)');
    const bucketName = requiredField(entry, path, 'bucket_name', at, 'the name of a bucket of the data directory');
    const previewBucketName = at.optionalString(entry, path, 'preview_bucket_name');
    const jurisdiction = at.optionalString(entry, path, 'jurisdiction');
    const bindingProblem = binding === undefined ? undefined : identifierProblem(binding);
    if (bindingProblem) at.problems.add(keyPath(path, 'binding'), bindingProblem);
    for (const [key, name] of [['bucket_name', bucketName], ['preview_bucket_name', previewBucketName]] as const) {
      if (name !== undefined && !BUCKET_NAME.test(name)) {
        at.problems.add(keyPath(path, key), `${JSON.stringify(name)} is not a valid bucket name (${BUCKET_NAME_RULE})`);
      }
    }
    if (binding === undefined || bindingProblem || bucketName === undefined) return;
    bindings.push({
      binding: {
        binding,
        bucketName,
        ...(previewBucketName === undefined ? {} : { previewBucketName }),
        ...(jurisdiction === undefined ? {} : { jurisdiction }),
      },
      path,
    });
  });
  return bindings;
}

function requiredField(entry: Table, path: string, key: string, at: Checker, meaning: string): string | undefined {
  if (!(key in entry)) {
    at.problems.add(keyPath(path, key), `missing: ${meaning}`);
    return undefined;
  }
  return at.optionalString(entry, path, key);
}

function requiredSecrets(value: unknown, at: Checker): string[] | undefined {
  if (value === undefined) return undefined;
  if (!isTable(value)) {
    at.problems.add('secrets', `must be a table with required = ["NAME", ...], not ${describeValue(value)}`);
    return undefined;
  }
  at.unknownKeys(value, 'secrets', ['required']);
  return at.nameList(value.required, 'secrets.required', SECRET_NAME, 'a secret name (letters, digits and _, not starting with a digit)');
}

/** Everything lands in one `env` object, so a name may be used once across bindings, vars and secrets. */
function reportNameClashes(config: WorkerConfig, buckets: PlacedBinding[], problems: ProblemList): void {
  const owners = new Map<string, string>();
  const claim = (name: string, path: string) => {
    const owner = owners.get(name);
    if (owner === undefined) owners.set(name, path);
    else problems.add(path, `${JSON.stringify(name)} is already bound by ${owner}`);
  };
  for (const { binding, path } of buckets) claim(binding.binding, keyPath(path, 'binding'));
  for (const name of Object.keys(config.vars)) claim(name, keyPath('vars', name));
  config.requiredSecrets?.forEach((name, index) => {
    const owner = owners.get(name);
    if (owner?.startsWith('vars')) {
      problems.add(
        keyPath('secrets.required', index),
        `${JSON.stringify(name)} is also set in [vars]: a secret's value comes from the environment or .dev.vars, never from the configuration file`,
      );
    } else claim(name, keyPath('secrets.required', index));
  });
}
