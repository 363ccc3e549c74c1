import { dirname, join } from 'node:path';
import { parseDevVars, ProblemList, readTextFile } from '../../config-files';
import type { WorkerConfig } from './worker-config';

/** The platform's local secrets file, beside the configuration; never committed. */
export const DEV_VARS_FILE = '.dev.vars';

/** Where a secret's value came from (shown at start-up; the value itself never is). */
export type SecretSource = 'environment' | typeof DEV_VARS_FILE;

export interface Secrets {
  values: Record<string, string>;
  sources: Record<string, SecretSource>;
}

/**
 * The worker's secrets. With `[secrets] required` declared, each listed name is taken from the
 * environment, else from `.dev.vars`; a missing one is an error, and other `.dev.vars` entries
 * are left out (as the platform does). Without it, every `.dev.vars` entry is a secret and the
 * environment is not consulted: the host cannot tell which of its variables are meant.
 */
export function resolveSecrets(config: WorkerConfig, environment: NodeJS.ProcessEnv): Secrets {
  const devVarsFile = join(dirname(config.file), DEV_VARS_FILE);
  const devVars = readDevVars(devVarsFile);
  const secrets: Secrets = { values: {}, sources: {} };
  const take = (name: string, value: string, source: SecretSource) => {
    secrets.values[name] = value;
    secrets.sources[name] = source;
  };
  if (config.requiredSecrets === undefined) {
    const problems = new ProblemList(devVarsFile);
    const taken = new Set([...config.buckets.map((bucket) => bucket.binding), ...Object.keys(config.vars)]);
    for (const [name, value] of Object.entries(devVars)) {
      if (taken.has(name)) problems.add(name, `the name is already bound by ${config.file}`);
      else take(name, value, DEV_VARS_FILE);
    }
    problems.throwIfAny();
    return secrets;
  }
  const problems = new ProblemList(config.file);
  config.requiredSecrets.forEach((name, index) => {
    const fromEnvironment = environment[name];
    const [value, source]: [string | undefined, SecretSource] =
      fromEnvironment !== undefined ? [fromEnvironment, 'environment'] : [devVars[name], DEV_VARS_FILE];
    // An empty value is a forgotten one: a worker comparing against it would be unprotected.
    if (value === '') problems.add(`secrets.required[${index}]`, `${name} is set but empty (in the ${source})`);
    else if (value !== undefined) take(name, value, source);
    else {
      problems.add(
        `secrets.required[${index}]`,
        `${name} is not set: export ${name} in the environment or add a line ${name}=... to ${devVarsFile}`,
      );
    }
  });
  problems.throwIfAny();
  return secrets;
}

function readDevVars(file: string): Record<string, string> {
  const text = readTextFile(file, true);
  return text === undefined ? {} : parseDevVars(text, file);
}
