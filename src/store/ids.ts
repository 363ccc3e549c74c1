import { randomBytes } from 'node:crypto';

const ID_PATTERN = /^[0-9a-f]{32}$/;

/** A new identifier in the service's form: 32 lower-case hex characters from a CSPRNG. */
export function newId(): string {
  return randomBytes(16).toString('hex');
}

export function isId(value: string): boolean {
  return ID_PATTERN.test(value);
}
