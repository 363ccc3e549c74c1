import fs from 'node:fs';
import { resolve } from 'node:path';
import { formatOfFile, parseConfigText, ProblemList, readTextFile } from '../../config-files';
import { validateConfig } from './validate-config';
import type { WorkerConfig } from './worker-config';

/**
 * Reads and checks a worker configuration file (`.toml`, or `.json` / `.jsonc` with comments).
 * Throws a `ConfigFileError` listing every problem: syntax with line and column, then each
 * bad entry with its key path and the reason.
 */
export function loadWorkerConfig(path: string, today = new Date()): WorkerConfig {
  const file = resolve(path);
  const problems = new ProblemList(file);
  const format = formatOfFile(file);
  if (!format) return problems.fail('', 'a worker configuration is a .toml, .json or .jsonc file');
  const text = readTextFile(file);
  const config = validateConfig(parseConfigText(text, file, format), file, problems, today);
  if (config.main !== '' && !isFile(config.main)) problems.add('main', `no such file: ${config.main}`);
  problems.throwIfAny();
  return config;
}

function isFile(path: string): boolean {
  try {
    return fs.statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Checks that every bound bucket exists among `existing` (the data directory's buckets), so a
 * typo fails at start-up instead of on the first request.
 */
export function requireExistingBuckets(
  config: WorkerConfig,
  existing: readonly string[],
  dataDir: string,
  /** The buckets' database (its URL without the password), when they are kept in one. */
  database?: string,
): void {
  const problems = new ProblemList(config.file);
  const account = config.accountId === undefined ? '' : ` --account ${config.accountId}`;
  const whose = config.accountId === undefined ? '' : ` of account ${config.accountId}`;
  config.buckets.forEach(({ bucketName }, index) => {
    if (existing.includes(bucketName)) return;
    problems.add(
      `r2_buckets[${index}].bucket_name`,
      database === undefined
        ? `no bucket ${JSON.stringify(bucketName)}${whose} in the data directory ${resolve(dataDir)} (create it with: npm run bucket -- create ${bucketName}${account} --data-dir ${dataDir})`
        : `no bucket ${JSON.stringify(bucketName)}${whose} in the database ${database} (create it with: npm run bucket -- create ${bucketName}${account}, with the same DATABASE_URL)`,
    );
  });
  problems.throwIfAny();
}
