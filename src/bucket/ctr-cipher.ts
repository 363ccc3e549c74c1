/**
 * Bytes encrypted at rest under a customer's key: AES-256 in counter mode (CTR), one random initial
 * counter block per stored segment (the body of a put, or one part of a multipart upload).
 *
 * Why CTR: it keeps the length of the bytes, so sizes, part sizes and the engines' ranges stay
 * those of the plain object, and any byte can be decrypted on its own (its counter block is the
 * segment's plus its offset / 16): a range or a part is read and decrypted without touching the
 * bytes before it. An AEAD in chunks (GCM per 64 KiB) would add a tag per chunk, so every offset
 * would need translating and a range would read whole chunks; what it adds, detecting bytes
 * changed at rest, is not what SSE-C promises (the store is trusted with integrity, the key keeps
 * the bytes secret). A segment's counter never wraps within it: at most 5 GiB is 2^28 blocks of a
 * 2^128 space, and each segment draws a fresh random start, so no two segments share a keystream.
 */
import { createCipheriv, createHmac, randomBytes, type Cipheriv, type Hmac, type KeyObject } from 'node:crypto';
import type { SegmentKeys } from './customer-key';
import type { ChunkSource, ObjectBytes, ObjectEncryption } from './engine';

const BLOCK = 16;

/** A fresh initial counter block for a new segment. */
export const newIv = () => randomBytes(BLOCK);

/** One stored segment: where it starts in the object, its size, its initial counter block. */
export interface CipherSegment {
  start: number;
  size: number;
  iv: Buffer;
}

/** The segments of an encrypted object, from the sizes of the parts it was stored as. */
export function segmentsOf(encryption: ObjectEncryption, partSizes: () => number[], size: number): CipherSegment[] {
  const sizes = encryption.ivs.length === 1 ? [size] : partSizes();
  if (sizes.length !== encryption.ivs.length) {
    throw new Error(`An encrypted object has ${sizes.length} stored parts but ${encryption.ivs.length} initial counter blocks.`);
  }
  let start = 0;
  return sizes.map((segmentSize, index) => {
    const segment = { start, size: segmentSize, iv: Buffer.from(encryption.ivs[index]!, 'base64') };
    start += segmentSize;
    return segment;
  });
}

/** The counter block `blocks` after `iv` (the 128-bit big-endian increment CTR applies). */
function counterAfter(iv: Buffer, blocks: number): Buffer {
  const counter = Buffer.from(iv);
  let carry = BigInt(blocks);
  for (let index = BLOCK - 1; index >= 0 && carry > 0n; index--) {
    const sum = BigInt(counter[index]!) + (carry & 0xffn);
    counter[index] = Number(sum & 0xffn);
    carry = (carry >> 8n) + (sum >> 8n);
  }
  return counter;
}

/** A CTR cipher positioned at byte `offset` of a segment (encryption and decryption are the same). */
function cipherAt(dataKey: KeyObject, iv: Buffer, offset: number): Cipheriv {
  const cipher = createCipheriv('aes-256-ctr', dataKey, counterAfter(iv, Math.floor(offset / BLOCK)));
  const skip = offset % BLOCK;
  if (skip > 0) cipher.update(Buffer.alloc(skip));
  return cipher;
}

/** Encrypts a segment's bytes as they stream past, and makes its etag from them. */
export class SegmentSealer {
  readonly #cipher: Cipheriv;
  readonly #etag: Hmac;
  readonly iv = newIv();

  constructor(keys: SegmentKeys) {
    this.#cipher = cipherAt(keys.data, this.iv, 0);
    this.#etag = createHmac('sha256', keys.etag());
  }

  async *seal(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunks) yield this.sealBytes(chunk);
  }

  /** Encrypts the next bytes of the segment. */
  sealBytes(bytes: Uint8Array): Uint8Array {
    this.#etag.update(bytes);
    return this.#cipher.update(bytes);
  }

  /**
   * The segment's etag: 32 hex digits, as an MD5's, of a keyed digest of the plain bytes. Never
   * their MD5 (as S3's etags of such objects are not), which would let anyone who can read the
   * metadata confirm a guess of the contents; the same bytes sent again under the same key (a
   * part uploaded twice) get the same etag, as on S3.
   */
  etag(): string {
    return this.#etag.digest('hex').slice(0, 32);
  }
}

/**
 * Decrypts bytes read from `offset` of an object on, across its segments: one cipher per segment,
 * positioned once, then run on as the bytes come in order.
 */
class Opener {
  #position: number;
  #segment = -1;
  #cipher: Cipheriv | undefined;

  constructor(
    private readonly dataKey: KeyObject,
    private readonly segments: CipherSegment[],
    offset: number,
  ) {
    this.#position = offset;
  }

  /** The plain bytes of the next `bytes` of the object. */
  open(bytes: Uint8Array): Buffer {
    const pieces: Buffer[] = [];
    for (let done = 0; done < bytes.byteLength; ) {
      const segment = this.#segmentAt();
      const take = Math.min(bytes.byteLength - done, segment.start + segment.size - this.#position);
      pieces.push(this.#cipher!.update(bytes.subarray(done, done + take)));
      done += take;
      this.#position += take;
    }
    return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
  }

  #segmentAt(): CipherSegment {
    let index = Math.max(this.#segment, 0);
    while (index < this.segments.length && this.#position >= this.segments[index]!.start + this.segments[index]!.size) index++;
    const segment = this.segments[index];
    if (!segment) throw new Error('The bytes read go past the end of the encrypted object.');
    if (index !== this.#segment) {
      this.#segment = index;
      this.#cipher = cipherAt(this.dataKey, segment.iv, this.#position - segment.start);
    }
    return segment;
  }
}

/** Decrypts the bytes of a read that starts at `offset` of the object. */
export function openBytes(bytes: ObjectBytes, dataKey: KeyObject, segments: CipherSegment[], offset: number): ObjectBytes {
  const opener = new Opener(dataKey, segments, offset);
  if (bytes instanceof Uint8Array) return bytes.byteLength === 0 ? bytes : opener.open(bytes);
  return new OpeningSource(bytes, opener);
}

/** A source of encrypted bytes read as plain ones. */
class OpeningSource implements ChunkSource {
  constructor(
    private readonly source: ChunkSource,
    private readonly opener: Opener,
  ) {}

  async next(): Promise<Uint8Array | null> {
    const chunk = await this.source.next();
    return chunk && this.opener.open(chunk);
  }

  async readInto(view: Uint8Array): Promise<number> {
    const count = await this.source.readInto(view);
    if (count > 0) view.set(this.opener.open(view.subarray(0, count)));
    return count;
  }

  close(): void {
    this.source.close();
  }
}
