/**
 * Running workers against the bucket runtime, as on the platform.
 *
 * - Configuration (`./config`): the platform's worker configuration file, TOML or JSONC, with
 *   its buckets (`[[r2_buckets]]`), vars, compatibility date and flags, and required secrets.
 * - Host (`./host`): `startWorker` serves a module worker with those bindings in `env`.
 * - The reference worker (`./reference`, its default export): the spec's bucket-over-HTTP worker
 *   with its authorization scheme, written with Web APIs only.
 */
export * from './config';
export * from './host';
export type { ReferenceWorkerEnv } from './reference';
