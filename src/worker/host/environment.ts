import type { AccountBuckets } from '../../bucket';
import type { Secrets, WorkerConfig } from '../config';

/** The worker's `env`, and one line per entry saying what it is (never a secret's value). */
export interface WorkerEnvironment {
  env: Record<string, unknown>;
  summary: string[];
}

/**
 * Builds `env`: vars, secrets and the bound buckets of the worker's account, each opened with
 * the worker's compatibility date and flags (they decide how `list` treats `include`).
 */
export async function buildEnvironment(
  config: WorkerConfig,
  secrets: Secrets,
  buckets: AccountBuckets,
): Promise<WorkerEnvironment> {
  const env: Record<string, unknown> = {};
  const summary: string[] = [];
  const runtime = {
    ...(config.compatibilityDate === undefined ? {} : { compatibilityDate: config.compatibilityDate }),
    compatibilityFlags: config.compatibilityFlags,
  };
  for (const { binding, bucketName } of config.buckets) {
    env[binding] = await buckets.open(bucketName, runtime);
    summary.push(`env.${binding}: bucket ${bucketName}`);
  }
  for (const [name, value] of Object.entries(config.vars)) {
    env[name] = value;
    summary.push(`env.${name}: var`);
  }
  for (const [name, value] of Object.entries(secrets.values)) {
    env[name] = value;
    summary.push(`env.${name}: secret (from ${secrets.sources[name]})`);
  }
  return { env, summary };
}
