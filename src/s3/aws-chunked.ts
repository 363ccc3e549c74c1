/**
 * The `aws-chunked` content encoding SDKs use to stream a body of known length with a checksum
 * in trailing headers, and optionally a signature on every chunk:
 * `<hex size>[;chunk-signature=<sig>]\r\n<bytes>\r\n ... 0[;chunk-signature=<sig>]\r\n<trailers>\r\n`.
 * Decoded as it arrives: chunk bytes pass on as they come, nothing is held but a line.
 */
import { createHash, type Hash } from 'node:crypto';
import { S3Error } from './errors';
import { chunkSignature, sameSignature, signatureMismatch, trailerSignature, type Signer } from './sigv4';

/** Longest chunk header or trailer line accepted. */
const MAX_LINE_BYTES = 4096;
/** Most trailing header lines accepted. */
const MAX_TRAILERS = 16;

const CRLF = Buffer.from('\r\n');

const incomplete = (why: string) =>
  new S3Error('IncompleteBody', 400, `The aws-chunked request body is malformed: ${why}.`);

/** Pulls bytes from a source, holding only what has not been consumed yet. */
class ByteReader {
  #pending: Buffer = Buffer.alloc(0);
  readonly #source: AsyncIterator<Uint8Array>;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.#source = source[Symbol.asyncIterator]();
  }

  async #more(): Promise<boolean> {
    const { done, value } = await this.#source.next();
    if (done) return false;
    this.#pending =
      this.#pending.length === 0
        ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
        : Buffer.concat([this.#pending, value]);
    return true;
  }

  /** The next line without its CRLF. */
  async line(what: string): Promise<string> {
    for (;;) {
      const end = this.#pending.indexOf(CRLF);
      if (end >= 0) {
        const text = this.#pending.subarray(0, end).toString('latin1');
        this.#pending = this.#pending.subarray(end + 2);
        return text;
      }
      if (this.#pending.length > MAX_LINE_BYTES)
        throw incomplete(`a ${what} line is longer than ${MAX_LINE_BYTES} bytes`);
      if (!(await this.#more())) throw incomplete(`the body ended inside a ${what} line`);
    }
  }

  /** Up to `count` bytes, at least one; throws at the end of the source. */
  async take(count: number): Promise<Buffer> {
    if (this.#pending.length === 0 && !(await this.#more())) throw incomplete('the body ended inside a chunk');
    const taken = this.#pending.subarray(0, count);
    this.#pending = this.#pending.subarray(taken.length);
    return taken;
  }

  async atEnd(): Promise<boolean> {
    while (this.#pending.length === 0) if (!(await this.#more())) return true;
    return false;
  }
}

/**
 * Decodes an aws-chunked body, verifying chunk signatures when `signer` is given (a signed
 * streaming payload), and fills `trailers` with the trailing headers (names lower-cased).
 */
export async function* decodeAwsChunked(
  source: AsyncIterable<Uint8Array>,
  signer: Signer | null,
  trailers: Map<string, string>,
  signedTrailer: boolean,
): AsyncGenerator<Uint8Array> {
  const reader = new ByteReader(source);
  let previous = signer?.signature ?? '';
  for (;;) {
    const header = await reader.line('chunk header');
    const match = /^([0-9a-fA-F]{1,16})(?:;chunk-signature=([0-9a-f]{64}))?$/.exec(header);
    if (!match)
      throw incomplete(
        `expected "<hex size>[;chunk-signature=<signature>]", got ${JSON.stringify(header.slice(0, 80))}`,
      );
    const size = parseInt(match[1]!, 16);
    const given = match[2];
    if (signer && given === undefined) throw incomplete('a chunk of a signed streaming body has no chunk-signature');
    const hash: Hash | null = signer ? createHash('sha256') : null;
    for (let left = size; left > 0; ) {
      const bytes = await reader.take(left);
      hash?.update(bytes);
      left -= bytes.length;
      yield bytes;
    }
    if (signer) {
      const expected = chunkSignature(signer, previous, hash!.digest('hex'));
      if (!sameSignature(expected, given!)) throw signatureMismatch();
      previous = expected;
    }
    if (size === 0) break;
    if ((await reader.line('chunk end')) !== '') throw incomplete('a chunk is longer than its declared size');
  }
  await readTrailers(reader, trailers, signer && signedTrailer ? { signer, previous } : null);
  if (!(await reader.atEnd())) throw incomplete('bytes follow the final chunk');
}

async function readTrailers(
  reader: ByteReader,
  trailers: Map<string, string>,
  signed: { signer: Signer; previous: string } | null,
): Promise<void> {
  let text = '';
  let signature: string | undefined;
  for (let count = 0; ; count++) {
    // The final CRLF may be missing when no trailer follows.
    if (count === 0 && (await reader.atEnd())) break;
    const line = await reader.line('trailer');
    if (line === '') break;
    if (count >= MAX_TRAILERS) throw incomplete(`more than ${MAX_TRAILERS} trailing headers`);
    const colon = line.indexOf(':');
    if (colon <= 0)
      throw incomplete(`a trailing header must read "name:value", got ${JSON.stringify(line.slice(0, 80))}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'x-amz-trailer-signature') signature = value;
    else {
      trailers.set(name, value);
      text += `${name}:${value}\n`;
    }
  }
  if (signed) {
    if (signature === undefined)
      throw incomplete('the trailing headers of a signed streaming body have no x-amz-trailer-signature');
    if (!sameSignature(trailerSignature(signed.signer, signed.previous, text), signature)) throw signatureMismatch();
  }
}
