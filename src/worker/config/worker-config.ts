/** A bucket bound into the worker's environment (`[[r2_buckets]]` in the file). */
export interface BucketBinding {
  /** The name the worker sees: `env.<binding>`. */
  binding: string;
  /** The bucket of the data directory it refers to. */
  bucketName: string;
  /** Read for compatibility with existing files; used by the platform's remote previews only. */
  previewBucketName?: string;
  /** Read for compatibility with existing files; every bucket here is local. */
  jurisdiction?: string;
}

/** A `[vars]` value: text, or any JSON value (the platform hands non-text vars over as parsed JSON). */
export type VarValue = string | number | boolean | null | VarValue[] | { [key: string]: VarValue };

/** A worker configuration, checked. Paths are absolute. */
export interface WorkerConfig {
  /** The configuration file. */
  file: string;
  name?: string;
  /** The module worker to serve (`main`, resolved against the file's directory). */
  main: string;
  accountId?: string;
  /** `YYYY-MM-DD`; absent means "behave as a current worker". */
  compatibilityDate?: string;
  compatibilityFlags: string[];
  vars: Record<string, VarValue>;
  buckets: BucketBinding[];
  /**
   * Secret names the worker needs (`[secrets] required`): read from the environment or the
   * `.dev.vars` file beside the configuration. Absent: every entry of `.dev.vars` is a secret.
   */
  requiredSecrets?: string[];
  /** Deployment settings present in the file that have no effect on a local host. */
  ignoredKeys: string[];
}
