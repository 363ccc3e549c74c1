// Runs the project's command-line tools (from node_modules/.bin) with an offline-friendly environment.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const quietEnv: NodeJS.ProcessEnv = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  SCARF_ANALYTICS: 'false',
  DO_NOT_TRACK: '1',
};

export function bin(name: string): string {
  return path.join(root, 'node_modules', '.bin', name);
}

/** Runs a tool; throws with its output when it fails. */
export function runTool(name: string, args: string[], options: SpawnSyncOptions = {}): string {
  const result = spawnSync(bin(name), args, { cwd: root, env: quietEnv, encoding: 'utf8', ...options });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== 0) {
    throw new Error(`${name} ${args.join(' ')} failed (exit ${result.status}):\n${output}`);
  }
  return output;
}
