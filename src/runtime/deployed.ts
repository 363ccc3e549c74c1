/**
 * What is deployed, as the runtime needs it: every account's workers.dev subdomain, each
 * deployed script with the versions of its current deployment (their shares, modules,
 * compatibility and bindings, secrets in the clear, for the worker alone), and zones' routes.
 * The shape of the store's read model; the platform hands it over.
 */

export type ModuleType = 'esm' | 'commonjs' | 'text' | 'data' | 'wasm' | 'sourcemap';

export interface DeployedModule {
  name: string;
  type: ModuleType;
  bytes: Uint8Array;
}

export type DeployedBinding =
  | { type: 'plain_text'; name: string; text: string }
  | { type: 'json'; name: string; json: unknown }
  | { type: 'r2_bucket'; name: string; bucket_name: string; jurisdiction?: string }
  | { type: 'secret_text'; name: string; text: string }
  /** The version's static assets, fetched through the platform's assets service. */
  | { type: 'assets'; name: string };

/** A static asset as a manifest names it. */
export interface AssetManifestEntry {
  hash: string;
  size: number;
}

/** How a version's assets are served. */
export interface AssetsConfig {
  html_handling: 'auto-trailing-slash' | 'force-trailing-slash' | 'drop-trailing-slash' | 'none';
  not_found_handling: 'none' | 'single-page-application' | '404-page';
  run_worker_first: boolean | string[];
}

export interface DeployedVersion {
  id: string;
  main_module: string;
  compatibility_date: string;
  compatibility_flags: string[];
  /** No modules: an assets-only version, which starts no process. */
  modules: DeployedModule[];
  bindings: DeployedBinding[];
  /** Paths to assets and how they are served; absent for a version without assets. */
  assets?: { manifest: Record<string, AssetManifestEntry>; config: AssetsConfig };
}

export interface DeployedScript {
  account_id: string;
  name: string;
  /** Served at `<name>.<subdomain>.workers.dev` when on. */
  workers_dev: boolean;
  /** The current deployment's versions, with percentages adding up to 100. */
  versions: { percentage: number; version: DeployedVersion }[];
  /** The script's cron triggers (none when absent). */
  crons?: string[];
}

export interface DeployedZone {
  id: string;
  name: string;
  account_id: string;
  routes: { pattern: string; script: string | null }[];
}

export interface DeployedWorkers {
  /** workers.dev subdomain by account id. */
  subdomains: Record<string, string>;
  scripts: DeployedScript[];
  zones: DeployedZone[];
}
