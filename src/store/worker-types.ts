/**
 * Workers as the store keeps them: scripts, immutable versions, deployments (which versions
 * serve, at what percentages), secrets (secret_text bindings of a version, sealed at rest), the
 * account's workers.dev subdomain and zone routes. Field names are the API's where the API
 * shows them.
 */
/** An ISO 8601 instant, as the API shows it (the same as `Timestamp` in types.ts; kept local so both records files stand on the ground floor). */
type Timestamp = string;

/** How a module's bytes are read, as the platform names module types. */
export const MODULE_TYPES = ['esm', 'commonjs', 'text', 'data', 'wasm', 'sourcemap'] as const;
export type ModuleType = (typeof MODULE_TYPES)[number];

export interface WorkerModuleInput {
  name: string;
  type: ModuleType;
  bytes: Uint8Array;
}

/** A module as a version lists it (its bytes are kept once per account, by SHA-256). */
export interface WorkerModuleRef {
  name: string;
  type: ModuleType;
  sha256: string;
  size: number;
}

/** Bindings as a writer sends them (a secret with its value). */
export type WorkerBindingInput =
  | { type: 'plain_text'; name: string; text: string }
  | { type: 'json'; name: string; json: unknown }
  | { type: 'r2_bucket'; name: string; bucket_name: string; jurisdiction?: string }
  | { type: 'secret_text'; name: string; text: string }
  | { type: 'assets'; name: string };

/** Bindings as reads answer them: a secret by name only, never its value. */
export type WorkerBinding = Exclude<WorkerBindingInput, { type: 'secret_text' }> | { type: 'secret_text'; name: string };

export const BINDING_TYPES = ['plain_text', 'json', 'r2_bucket', 'secret_text', 'assets'] as const;

/** A static asset as a manifest names it: wrangler's hash of its content and extension, and its size. */
export interface AssetManifestEntry {
  hash: string;
  size: number;
}

/** Paths (`/index.html`) to their assets. */
export type AssetManifest = Record<string, AssetManifestEntry>;

/** How a version's assets are served (the upload's `assets.config`, defaults filled in). */
export interface WorkerAssetsConfig {
  html_handling: 'auto-trailing-slash' | 'force-trailing-slash' | 'drop-trailing-slash' | 'none';
  not_found_handling: 'none' | 'single-page-application' | '404-page';
  /** true: the worker runs first for every request; a list: for paths matching its patterns (`!` patterns excluded). */
  run_worker_first: boolean | string[];
}

/** What an upload says of its assets: a completion token of an upload session, or keep the latest version's. */
export type WorkerAssetsInput = { kind: 'token'; token: string; config: WorkerAssetsConfig } | { kind: 'keep'; config: WorkerAssetsConfig | null };

/** A version's assets as reads answer them. */
export interface WorkerVersionAssets {
  manifest: AssetManifest;
  config: WorkerAssetsConfig;
}

export interface WorkerVersion {
  id: string;
  script_name: string;
  number: number;
  main_module: string;
  compatibility_date: string;
  compatibility_flags: string[];
  bindings: WorkerBinding[];
  modules: WorkerModuleRef[];
  annotations: Record<string, string>;
  source: string;
  author_email: string | null;
  etag: string;
  handlers: string[];
  created_on: Timestamp;
}

export interface DeploymentVersion {
  version_id: string;
  percentage: number;
}

export interface WorkerDeployment {
  id: string;
  script_name: string;
  strategy: 'percentage';
  versions: DeploymentVersion[];
  annotations: Record<string, string>;
  source: string;
  author_email: string | null;
  created_on: Timestamp;
}

/** Script-level settings (not versioned): what PATCH script-settings changes. */
export interface WorkerScriptSettings {
  logpush: boolean;
  observability: { enabled: boolean; head_sampling_rate?: number | null } | null;
  tags: string[];
  tail_consumers: { service: string; environment?: string; namespace?: string }[] | null;
}

export interface WorkerScript {
  name: string;
  tag: string;
  workers_dev: boolean;
  previews_enabled: boolean;
  settings: WorkerScriptSettings;
  created_on: Timestamp;
  modified_on: Timestamp;
  /** The deployment serving now (null: nothing deployed, the script answers no request). */
  deployment: WorkerDeployment | null;
  /** The newest version uploaded, deployed or not. */
  latest: WorkerVersion;
}

/** What an upload sends: one new version. */
export interface WorkerVersionInput {
  main_module: string;
  compatibility_date: string;
  compatibility_flags: string[];
  bindings: WorkerBindingInput[];
  modules: WorkerModuleInput[];
  /**
   * Binding types carried over from the version serving now when the upload does not name
   * them (wrangler sends `keep_bindings: ["secret_text", ...]` so that secrets survive a deploy).
   */
  keep_bindings: readonly string[];
  annotations: Record<string, string>;
  source: string;
  author_email: string | null;
  handlers: string[];
  /** The version's static assets; none when absent. */
  assets?: WorkerAssetsInput;
}

export interface DeploymentInput {
  versions: DeploymentVersion[];
  annotations: Record<string, string>;
  source: string;
  author_email: string | null;
}

export interface WorkerRoute {
  id: string;
  zone_id: string;
  pattern: string;
  /** The script the pattern runs; null turns workers off for the pattern. */
  script: string | null;
}

export interface WorkerRouteInput {
  pattern: string;
  script: string | null;
}

/*
 * The runtime's read model of what is deployed (workers/read-model.ts reads it).
 */

export type DeployedBinding =
  | { type: 'plain_text'; name: string; text: string }
  | { type: 'json'; name: string; json: unknown }
  | { type: 'r2_bucket'; name: string; bucket_name: string; jurisdiction?: string }
  | { type: 'secret_text'; name: string; text: string }
  | { type: 'assets'; name: string };

export interface DeployedModule {
  name: string;
  type: ModuleType;
  sha256: string;
  bytes: Uint8Array;
}

export interface DeployedVersion {
  id: string;
  number: number;
  main_module: string;
  compatibility_date: string;
  compatibility_flags: string[];
  modules: DeployedModule[];
  bindings: DeployedBinding[];
  /** The version's static assets (their bytes read on demand: DeployedWorkersReader.assetContent). */
  assets?: WorkerVersionAssets;
}

export interface DeployedScript {
  account_id: string;
  name: string;
  /** The script's id. */
  tag: string;
  /** Served at `<name>.<subdomain>.workers.dev` when on (and the account has a subdomain). */
  workers_dev: boolean;
  deployment_id: string;
  /** The current deployment's versions and shares (percentages adding up to 100). */
  versions: (DeploymentVersion & { version: DeployedVersion })[];
  /** The script's cron triggers, as written (checked when they were set). */
  crons: string[];
}

/** A cron trigger of a script. */
export interface WorkerSchedule {
  cron: string;
  created_on: string;
  modified_on: string;
}

export interface DeployedZone {
  id: string;
  name: string;
  account_id: string;
  /** Each pattern once; `script` null means the pattern runs no worker. */
  routes: { id: string; pattern: string; script: string | null }[];
}

export interface DeployedWorkers {
  /** The change marker this snapshot was read at. */
  marker: number;
  /** workers.dev subdomain by account id (accounts without one are absent). */
  subdomains: Record<string, string>;
  /** Scripts with a deployment (a script never deployed serves nothing and is absent). */
  scripts: DeployedScript[];
  /** Zones with at least one route. */
  zones: DeployedZone[];
}

export interface DeployedWorkersReader {
  /** The number that moves with every committed change of what is deployed (0 before the first). */
  changeMarker(): Promise<number>;
  /** Everything deployed, from one consistent read. */
  snapshot(): Promise<DeployedWorkers>;
  /**
   * Throws SecretSealError, naming the key ids, when a secret in the store was sealed under
   * another key than this store's: a platform given the wrong key refuses to start rather than
   * serve what it cannot open. Resolves at once when no secret is stored.
   */
  checkSecretsKey(): Promise<void>;
  /**
   * Claims the run of a script's cron trigger at a minute (ms since the epoch, a whole minute):
   * true for the first caller only, on every instance sharing the database. Claims older than a
   * day are dropped on the way.
   */
  claimScheduledRun(accountId: string, script: string, cron: string, minute: number): Promise<boolean>;
  /** An asset's bytes and content type, by the account that holds them and its hash; null when it holds none. */
  assetContent(accountId: string, hash: string): Promise<{ bytes: Uint8Array; content_type: string | null } | null>;
}
