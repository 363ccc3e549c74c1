/**
 * The worker configuration file, in the platform's own spellings (TOML, or JSON with comments):
 * `name`, `main`, `account_id`, `compatibility_date`, `compatibility_flags`, `[vars]`,
 * `[[r2_buckets]]` (`binding`, `bucket_name`; `preview_bucket_name` and `jurisdiction` accepted)
 * and `[secrets] required`. Deployment-only keys (routes, observability, ...) are accepted and
 * reported as ignored; any other key is an error.
 *
 * - `loadWorkerConfig(path)`: reads and checks a file; a `ConfigFileError` (from `src/config-files`) lists every problem
 *   with the file, the key path or line:column, and the reason.
 * - `requireExistingBuckets(config, names, dataDir, database?)`: every bound bucket must exist.
 * - `resolveSecrets(config, environment)`: secrets from the environment or `.dev.vars` beside
 *   the file (see `resolveSecrets` for which), never from the configuration itself.
 */
export { ConfigFileError } from '../../config-files';
export { loadWorkerConfig, requireExistingBuckets } from './load-config';
export { DEV_VARS_FILE, resolveSecrets, type SecretSource, type Secrets } from './secrets';
export type { BucketBinding, VarValue, WorkerConfig } from './worker-config';
