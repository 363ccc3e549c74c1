/**
 * Secret values sealed at rest: AES-256-GCM under a key the store never holds in its tables,
 * bound to where the value belongs (account, script, binding name) as associated data, so a
 * sealed value copied to another script's row does not open. A sealed value is text:
 * `v1.<key id>.<nonce>.<ciphertext+tag>` (base64url), the key id telling a value sealed under
 * another key from a damaged one.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The environment variable holding the key (64 hex characters, or 32 bytes in base64). */
export const SECRETS_KEY_VARIABLE = 'WORKERS_SECRETS_KEY';
/** The key file made in the data directory when the variable is not set (owner-only). */
export const SECRETS_KEY_FILE = 'workers-secrets.key';

const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = 'v1';

/** A sealed value could not be opened: another key sealed it, or it was changed. */
export class SecretSealError extends Error {
  override readonly name = 'SecretSealError';
}

export class SecretBox {
  readonly #key: Buffer;
  /** Names the key without revealing it: the first bytes of a hash of it. */
  readonly keyId: string;

  constructor(key: Uint8Array) {
    if (key.byteLength !== KEY_BYTES) throw new RangeError(`a secrets key is ${KEY_BYTES} bytes, not ${key.byteLength}`);
    this.#key = Buffer.from(key);
    this.keyId = createHash('sha256').update('workers-secrets-key-id').update(this.#key).digest('base64url').slice(0, 11);
  }

  /** A key of its own for another purpose (signing tokens), derived from this one: HMAC-SHA256(key, purpose). */
  derive(purpose: string): Buffer {
    return createHmac('sha256', this.#key).update(purpose).digest();
  }

  seal(plaintext: string, where: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    cipher.setAAD(Buffer.from(where));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [FORMAT, this.keyId, nonce.toString('base64url'), sealed.toString('base64url')].join('.');
  }

  open(sealed: string, where: string): string {
    const [format, keyId, nonce, body] = sealed.split('.');
    if (format !== FORMAT || nonce === undefined || body === undefined) throw new SecretSealError('a sealed secret is damaged');
    if (keyId !== this.keyId) {
      throw new SecretSealError(`a secret was sealed under another key (key id ${keyId}, this one is ${this.keyId}): set ${SECRETS_KEY_VARIABLE} to the key it was sealed with`);
    }
    const bytes = Buffer.from(body, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(nonce, 'base64url'));
      decipher.setAAD(Buffer.from(where));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretSealError('a sealed secret does not open: it was changed, or moved from where it was sealed');
    }
  }

  /** The key from its text form: 64 hex characters or base64 of 32 bytes. */
  static fromText(text: string, source: string): SecretBox {
    const trimmed = text.trim();
    const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
    if (key.byteLength !== KEY_BYTES) {
      throw new RangeError(`${source}: a workers secrets key is 32 bytes, written as 64 hex characters or in base64 (got ${key.byteLength} bytes)`);
    }
    return new SecretBox(key);
  }
}

/**
 * The platform's secrets key: `WORKERS_SECRETS_KEY` when set (what several instances sharing one
 * database must all be given), else the data directory's key file, made once with a new random
 * key and owner-only permissions.
 */
export function loadSecretBox(options: { dataDir: string; variable?: string | undefined }): SecretBox {
  if (options.variable !== undefined && options.variable !== '') return SecretBox.fromText(options.variable, SECRETS_KEY_VARIABLE);
  const file = path.join(options.dataDir, SECRETS_KEY_FILE);
  try {
    return SecretBox.fromText(readFileSync(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(options.dataDir, { recursive: true });
  try {
    // `wx`: of two processes starting at once on one directory, one writes and both read it.
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  chmodSync(file, 0o600);
  return SecretBox.fromText(readFileSync(file, 'utf8'), file);
}

/** The id of the key that sealed a value, or undefined when the value is not a sealed one. */
export function sealedKeyId(sealed: string): string | undefined {
  const [format, keyId, nonce, body] = sealed.split('.');
  return format === FORMAT && nonce !== undefined && body !== undefined ? keyId : undefined;
}

/** Where a secret belongs: what its sealing is bound to. */
export function secretPlace(accountId: string, scriptName: string, bindingName: string): string {
  return `${accountId}/${scriptName}/${bindingName}`;
}
