/**
 * Static assets of worker uploads, checked: the manifest of an upload session (paths, hashes,
 * sizes, the platform's limits), each uploaded file against its hash (wrangler's: BLAKE3 of the
 * base64 content followed by the extension, first 32 hex digits), and the `assets` member of a
 * version's metadata (its config: what is served, and what is refused by name).
 */
import { blake3 } from '@noble/hashes/blake3.js';
import path from 'node:path';
import type { AssetManifest, WorkerAssetsConfig, WorkerAssetsInput } from '../../store';
import { badRequest } from '../http/errors';
import type { FormPart } from './form';

/** The platform's limits on static assets (Workers' documented limits): files per version, bytes per file. */
export const MAX_ASSET_FILES = 20_000;
export const MAX_ASSET_BYTES = 25 * 1024 * 1024;
/** The platform's error for a bad upload. */
const INVALID = 10021;

const HASH = /^[0-9a-f]{32}$/;
const HTML_HANDLING = ['auto-trailing-slash', 'force-trailing-slash', 'drop-trailing-slash', 'none'] as const;
const NOT_FOUND_HANDLING = ['none', 'single-page-application', '404-page'] as const;
const MAX_WORKER_FIRST_RULES = 100;
const MAX_WORKER_FIRST_RULE_LENGTH = 100;

/** An upload session's manifest, checked: paths as wrangler writes them, hashes, sizes within the limits. */
export function checkManifest(value: unknown): AssetManifest {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('manifest must be an object of paths to {hash, size}', INVALID);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_ASSET_FILES) throw badRequest(`manifest: ${entries.length} files is over the limit of ${MAX_ASSET_FILES} static assets per version`, INVALID);
  const manifest: AssetManifest = {};
  for (const [file, entry] of entries) {
    if (!file.startsWith('/') || file.includes('\0') || file.split('/').some((segment) => segment === '.' || segment === '..')) {
      throw badRequest(`manifest: ${JSON.stringify(file)} is not a path of the assets directory (it starts with / and has no . or .. segment)`, INVALID);
    }
    const { hash, size } = (entry ?? {}) as { hash?: unknown; size?: unknown };
    if (typeof hash !== 'string' || !HASH.test(hash)) throw badRequest(`manifest: ${file}: hash must be 32 hex digits`, INVALID);
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) throw badRequest(`manifest: ${file}: size must be a number of bytes`, INVALID);
    if (size > MAX_ASSET_BYTES) throw badRequest(`manifest: ${file} is ${size} bytes, over the limit of 25 MiB per static asset`, INVALID);
    manifest[file] = { hash, size };
  }
  return manifest;
}

/** wrangler's hash of an asset: BLAKE3 over its base64 and its extension, the first 32 hex digits. */
export function assetHash(base64: string, file: string): string {
  const extension = path.posix.extname(file).slice(1);
  return Buffer.from(blake3(Buffer.from(base64 + extension))).toString('hex').slice(0, 32);
}

/**
 * The files of one upload request, checked against the session's manifest: each part named by a
 * hash the session asked for, its base64 content hashing to that name with the extension of a
 * path that has it, its size the manifest's.
 */
export function checkUploadedFiles(parts: FormPart[], manifest: AssetManifest): { hash: string; content_type: string | null; bytes: Uint8Array }[] {
  const byHash = new Map<string, { file: string; size: number }>();
  for (const [file, entry] of Object.entries(manifest)) if (!byHash.has(entry.hash)) byHash.set(entry.hash, { file, size: entry.size });
  if (parts.length === 0) throw badRequest('the upload has no files: one part per file, named by its hash', INVALID);
  const seen = new Set<string>();
  return parts.map((part) => {
    const hash = part.name;
    const entry = byHash.get(hash);
    if (entry === undefined) throw badRequest(`file ${hash}: not a hash of this upload session's manifest`, INVALID);
    if (seen.has(hash)) throw badRequest(`file ${hash} is uploaded twice`, INVALID);
    seen.add(hash);
    const base64 = part.bytes.toString('latin1').replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw badRequest(`file ${hash} (${entry.file}): its content is not base64 (base64=true)`, INVALID);
    if (assetHash(base64, entry.file) !== hash) throw badRequest(`file ${hash} (${entry.file}): its content does not match its hash`, INVALID);
    const bytes = Buffer.from(base64, 'base64');
    if (bytes.byteLength !== entry.size) throw badRequest(`file ${hash} (${entry.file}): ${bytes.byteLength} bytes, the manifest said ${entry.size}`, INVALID);
    const type = (part.contentType ?? '').trim();
    return { hash, content_type: type === '' || type.toLowerCase() === 'application/null' ? null : type, bytes: new Uint8Array(bytes) };
  });
}

/**
 * The `assets` and `keep_assets` members of a version's metadata. Config members this platform
 * does not serve (`_headers`, `_redirects`, `base_path`, anything unknown) are refused by name.
 */
export function checkAssetsMetadata(assets: unknown, keepSent: unknown, hasWorker: boolean): WorkerAssetsInput | undefined {
  const keepAssets = formBoolean(keepSent);
  if (keepAssets !== undefined && typeof keepAssets !== 'boolean') throw badRequest('metadata.keep_assets must be a boolean', INVALID);
  if (assets === undefined || assets === null) return keepAssets === true ? { kind: 'keep', config: null } : undefined;
  if (typeof assets !== 'object' || Array.isArray(assets)) throw badRequest('metadata.assets must be an object ({jwt, config})', INVALID);
  const { jwt, config, ...rest } = assets as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw badRequest(`metadata.assets: ${unknown.join(', ')} is not served by this platform (served: jwt, config)`, INVALID);
  const checked = checkAssetsConfig(config, hasWorker);
  if (jwt === undefined) {
    if (keepAssets === true) return { kind: 'keep', config: config === undefined ? null : checked };
    throw badRequest('metadata.assets.jwt: the completion token of an assets upload session is required (or keep_assets: true)', INVALID);
  }
  if (typeof jwt !== 'string' || jwt === '') throw badRequest('metadata.assets.jwt must be the completion token of an assets upload session', INVALID);
  if (keepAssets === true) throw badRequest('metadata: assets.jwt and keep_assets name two sets of assets: send one', INVALID);
  return { kind: 'token', token: jwt, config: checked };
}

function checkAssetsConfig(value: unknown, hasWorker: boolean): WorkerAssetsConfig {
  const config: WorkerAssetsConfig = { html_handling: 'auto-trailing-slash', not_found_handling: 'none', run_worker_first: false };
  if (value === undefined || value === null) return config;
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest('metadata.assets.config must be an object', INVALID);
  const refused: string[] = [];
  for (const [member, setting] of Object.entries(value as Record<string, unknown>)) {
    if (setting === undefined || setting === null) continue;
    switch (member) {
      case 'html_handling':
        if (!HTML_HANDLING.includes(setting as never)) throw badRequest(`metadata.assets.config.html_handling ${JSON.stringify(setting)} is not one of ${HTML_HANDLING.join(', ')}`, INVALID);
        config.html_handling = setting as WorkerAssetsConfig['html_handling'];
        break;
      case 'not_found_handling':
        if (!NOT_FOUND_HANDLING.includes(setting as never)) throw badRequest(`metadata.assets.config.not_found_handling ${JSON.stringify(setting)} is not one of ${NOT_FOUND_HANDLING.join(', ')}`, INVALID);
        config.not_found_handling = setting as WorkerAssetsConfig['not_found_handling'];
        break;
      case 'run_worker_first':
        config.run_worker_first = checkWorkerFirst(setting, hasWorker);
        break;
      case '_headers':
      case '_redirects':
      case 'base_path':
        // An empty file or path says nothing; anything else would be ignored, so it is refused.
        if (setting === '' || (typeof setting === 'string' && setting.trim() === '' && member !== 'base_path')) break;
        refused.push(member === 'base_path' ? 'base_path' : `${member} (the ${member} file)`);
        break;
      default:
        refused.push(member);
    }
  }
  if (refused.length > 0) throw badRequest(`metadata.assets.config: ${refused.join(', ')} is not served by this platform (served: html_handling, not_found_handling, run_worker_first); remove it from the upload`, INVALID);
  return config;
}

/** A boolean as JSON sends it, or as the official client's form fields do (`"true"`, `"false"`). */
function formBoolean(value: unknown): unknown {
  return value === 'true' ? true : value === 'false' ? false : value;
}

function checkWorkerFirst(sent: unknown, hasWorker: boolean): boolean | string[] {
  const setting = formBoolean(sent);
  if (typeof setting === 'boolean') {
    if (setting && !hasWorker) throw badRequest('metadata.assets.config.run_worker_first: an assets-only worker has no worker to run first', INVALID);
    return setting;
  }
  if (!Array.isArray(setting) || setting.some((rule) => typeof rule !== 'string')) {
    throw badRequest('metadata.assets.config.run_worker_first must be a boolean or a list of path patterns', INVALID);
  }
  if (!hasWorker) throw badRequest('metadata.assets.config.run_worker_first: an assets-only worker has no worker to run first', INVALID);
  const rules = setting as string[];
  if (rules.length > MAX_WORKER_FIRST_RULES) throw badRequest(`metadata.assets.config.run_worker_first: at most ${MAX_WORKER_FIRST_RULES} patterns`, INVALID);
  for (const rule of rules) {
    if (!(rule.startsWith('/') || rule.startsWith('!/')) || rule.length > MAX_WORKER_FIRST_RULE_LENGTH) {
      throw badRequest(`metadata.assets.config.run_worker_first: ${JSON.stringify(rule)} is not a path pattern (it starts with / or !/, at most ${MAX_WORKER_FIRST_RULE_LENGTH} characters)`, INVALID);
    }
  }
  return [...rules];
}
