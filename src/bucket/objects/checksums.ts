import { createHash, type Hash } from 'node:crypto';
import type { Checksums, HexChecksums, PutOptions } from '../contract';
import type { RecordChecksums } from '../engine';
import type { FlexibleChecksum } from '../checksums';
import { badDigest, describe } from '../shared';

export type HashField = keyof HexChecksums;

const ALGORITHMS: { field: HashField; name: string; bytes: number }[] = [
  { field: 'md5', name: 'MD5', bytes: 16 },
  { field: 'sha1', name: 'SHA-1', bytes: 20 },
  { field: 'sha256', name: 'SHA-256', bytes: 32 },
  { field: 'sha384', name: 'SHA-384', bytes: 48 },
  { field: 'sha512', name: 'SHA-512', bytes: 64 },
];

/** A hash the caller expects the received bytes to have. */
export interface ExpectedHash {
  field: HashField;
  name: string;
  hex: string;
}

/** Reads the integrity hash of PutOptions: at most one algorithm, binary or hex of the right length. */
export function parseExpectedHash(options: PutOptions): ExpectedHash | undefined {
  let expected: ExpectedHash | undefined;
  for (const { field, name, bytes } of ALGORITHMS) {
    const value: unknown = options[field];
    if (value === undefined) continue;
    if (expected) throw new TypeError('You cannot specify multiple hashing algorithms.');
    expected = { field, name, hex: hashHex(value, name, bytes) };
  }
  return expected;
}

function hashHex(value: unknown, name: string, bytes: number): string {
  if (typeof value === 'string') {
    if (value.length !== bytes * 2) {
      throw new TypeError(`${name} is ${bytes * 2} hex characters, not ${value.length}`);
    }
    if (!/^[0-9a-f]*$/i.test(value)) throw new TypeError(`Provided ${name} wasn't a valid hex string`);
    return value.toLowerCase();
  }
  const binary =
    value instanceof ArrayBuffer
      ? Buffer.from(value)
      : ArrayBuffer.isView(value)
        ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
        : undefined;
  if (!binary) throw new TypeError(`${name} must be an ArrayBuffer, a view or a hex string, not ${describe(value)}.`);
  if (binary.length !== bytes) throw new TypeError(`${name} is ${bytes} bytes, not ${binary.length}`);
  return binary.toString('hex');
}

/**
 * Hashes bytes as they stream past: MD5 always (it is the etag), plus the algorithm of an
 * expected hash.
 */
export class StreamHasher {
  private readonly md5 = createHash('md5');
  private readonly extra: Hash | undefined;

  constructor(private readonly expected: ExpectedHash | undefined) {
    if (expected && expected.field !== 'md5') this.extra = createHash(expected.field);
  }

  update(chunk: Uint8Array): void {
    this.md5.update(chunk);
    this.extra?.update(chunk);
  }

  /** The checksums to store; rejects when the expected hash differs from the bytes received. */
  finish(): HexChecksums {
    const checksums: HexChecksums = { md5: this.md5.digest('hex') };
    if (this.expected) {
      const actual = this.extra ? this.extra.digest('hex') : checksums.md5!;
      if (actual !== this.expected.hex) throw badDigest(this.expected.name, this.expected.hex, actual);
      checksums[this.expected.field] = actual;
    }
    return checksums;
  }
}

/** Stored checksums as callers see them: ArrayBuffers, plus hex through `toJSON`. */
export class StoredChecksums implements Checksums {
  readonly #hex: HexChecksums;
  readonly #flexible: FlexibleChecksum | undefined;

  constructor({ flexible, ...hex }: RecordChecksums) {
    this.#hex = hex;
    this.#flexible = flexible;
  }

  /** The S3 checksum kept beside the binding's hashes: never shown to the binding. */
  static flexibleOf(checksums: Checksums): FlexibleChecksum | undefined {
    return checksums instanceof StoredChecksums ? checksums.#flexible : undefined;
  }

  // Decoded on access: listings build many of these and seldom read them.
  get md5(): ArrayBuffer | undefined {
    return this.#binary('md5');
  }

  get sha1(): ArrayBuffer | undefined {
    return this.#binary('sha1');
  }

  get sha256(): ArrayBuffer | undefined {
    return this.#binary('sha256');
  }

  get sha384(): ArrayBuffer | undefined {
    return this.#binary('sha384');
  }

  get sha512(): ArrayBuffer | undefined {
    return this.#binary('sha512');
  }

  toJSON(): HexChecksums {
    return { ...this.#hex };
  }

  #binary(field: HashField): ArrayBuffer | undefined {
    const hex = this.#hex[field];
    if (hex === undefined) return undefined;
    const bytes = Buffer.from(hex, 'hex');
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  }
}
