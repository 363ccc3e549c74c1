/**
 * The access keys of the endpoint. SigV4 needs each secret itself to compute signatures (a hash
 * would not do), so secrets are read from the environment or a credentials file, kept in memory
 * only, never logged, never written to the data directory, and never part of a message.
 */
import fs from 'node:fs';
import { parseDevVars } from '../config-files';
import type { AccessKeys } from './sigv4';

/** The variables naming one access key in the environment. */
export const ACCESS_KEY_ID_VARIABLE = 'S3_ACCESS_KEY_ID';
export const SECRET_ACCESS_KEY_VARIABLE = 'S3_SECRET_ACCESS_KEY';

/** A configuration that cannot be used: which setting, and why. */
export class S3ConfigError extends Error {
  override readonly name = 'S3ConfigError';
}

const ACCESS_KEY_ID = /^[A-Za-z0-9_]{3,128}$/;

/**
 * Access keys from `S3_ACCESS_KEY_ID` / `S3_SECRET_ACCESS_KEY` and from a credentials file of
 * `ACCESS_KEY_ID=secret` lines (the `.dev.vars` syntax). At least one key is required.
 */
export function loadAccessKeys(environment: NodeJS.ProcessEnv, credentialsFile?: string): AccessKeys {
  const keys = new Map<string, string>();
  const add = (id: string, secret: string, where: string) => {
    if (!ACCESS_KEY_ID.test(id))
      throw new S3ConfigError(
        `${where}: the access key id ${JSON.stringify(id)} must be 3 to 128 letters, digits or _.`,
      );
    if (secret.length < 8) throw new S3ConfigError(`${where}: the secret of ${id} is shorter than 8 characters.`);
    if (keys.has(id)) throw new S3ConfigError(`${where}: the access key id ${id} is given twice.`);
    keys.set(id, secret);
  };
  const id = environment[ACCESS_KEY_ID_VARIABLE];
  const secret = environment[SECRET_ACCESS_KEY_VARIABLE];
  if ((id === undefined) !== (secret === undefined)) {
    throw new S3ConfigError(
      `${ACCESS_KEY_ID_VARIABLE} and ${SECRET_ACCESS_KEY_VARIABLE} go together: set both or neither.`,
    );
  }
  if (id !== undefined && secret !== undefined) add(id, secret, 'the environment');
  if (credentialsFile !== undefined) {
    let text;
    try {
      text = fs.readFileSync(credentialsFile, 'utf8');
    } catch (error) {
      throw new S3ConfigError(
        `${credentialsFile}: cannot read the credentials file (${(error as NodeJS.ErrnoException).code ?? String(error)}).`,
      );
    }
    let entries;
    try {
      entries = parseDevVars(text, credentialsFile);
    } catch (error) {
      throw new S3ConfigError((error as Error).message);
    }
    for (const [fileId, fileSecret] of Object.entries(entries)) add(fileId, fileSecret, credentialsFile);
  }
  if (keys.size === 0) {
    throw new S3ConfigError(
      `No access key: set ${ACCESS_KEY_ID_VARIABLE} and ${SECRET_ACCESS_KEY_VARIABLE}, or give a credentials file of ACCESS_KEY_ID=secret lines.`,
    );
  }
  return keys;
}
