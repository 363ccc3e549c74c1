/**
 * The CRC checksums S3 clients send (`x-amz-checksum-crc32c`, `-crc64nvme`) that Node's crypto
 * lacks; CRC32 itself comes from zlib. Table-driven, reflected, as the algorithms define them.
 */

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32C (Castagnoli), continued from `previous` (0 to start). */
export function crc32c(data: Uint8Array, previous = 0): number {
  let crc = ~previous >>> 0;
  for (let i = 0; i < data.length; i++) crc = CRC32C_TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

// CRC-64/NVME: reflected polynomial 0x9A6C9329AC4BC9B5, kept as two 32-bit halves so the
// inner loop stays in small integers. Computed on bigints, so made on first use rather than at
// every start.
let crc64Tables: [Uint32Array, Uint32Array] | undefined;
const makeCrc64Tables = (): [Uint32Array, Uint32Array] => {
  const low = new Uint32Array(256);
  const high = new Uint32Array(256);
  const poly = 0x9a6c9329ac4bc9b5n;
  for (let n = 0n; n < 256n; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1n ? poly ^ (c >> 1n) : c >> 1n;
    low[Number(n)] = Number(c & 0xffffffffn);
    high[Number(n)] = Number(c >> 32n);
  }
  return [low, high];
};

/** CRC-64/NVME as a running state: `update` bytes, then `digest` the 8 big-endian bytes. */
export class Crc64Nvme {
  #low = 0xffffffff;
  #high = 0xffffffff;

  update(data: Uint8Array): this {
    const [lowTable, highTable] = (crc64Tables ??= makeCrc64Tables());
    let low = this.#low;
    let high = this.#high;
    for (let i = 0; i < data.length; i++) {
      const index = (low ^ data[i]!) & 0xff;
      low = ((low >>> 8) | (high << 24)) ^ lowTable[index]!;
      high = (high >>> 8) ^ highTable[index]!;
    }
    this.#low = low >>> 0;
    this.#high = high >>> 0;
    return this;
  }

  digest(): Buffer {
    const out = Buffer.alloc(8);
    out.writeUInt32BE(~this.#high >>> 0, 0);
    out.writeUInt32BE(~this.#low >>> 0, 4);
    return out;
  }
}

/**
 * Reflected CRC arithmetic modulo the polynomial, on bigints so one code serves 32 and 64 bits:
 * what combining two CRCs needs (zlib's crc32_combine, generalised). With an initial value and a
 * final XOR of all ones, as these three CRCs have, crc(A ‖ B) = crc(A)·x^(8·|B|) mod P ⊕ crc(B).
 */
class CrcField {
  readonly #top: bigint;
  /** x^(2^k) mod P, for k = 0..63. */
  readonly #powers: bigint[] = [];

  constructor(
    width: number,
    private readonly poly: bigint,
  ) {
    this.#top = 1n << BigInt(width - 1);
    let power = this.#top >> 1n; // x^1
    for (let k = 0; k < 64; k++) {
      this.#powers.push(power);
      power = this.multiply(power, power);
    }
  }

  multiply(a: bigint, b: bigint): bigint {
    let product = 0n;
    for (let m = this.#top; m !== 0n; m >>= 1n) {
      if (a & m) product ^= b;
      b = b & 1n ? (b >> 1n) ^ this.poly : b >> 1n;
    }
    return product;
  }

  /** x^(8·bytes) mod P. */
  shift(bytes: number): bigint {
    let result = this.#top; // x^0
    let n = BigInt(bytes);
    for (let k = 3; n > 0n; n >>= 1n, k++) if (n & 1n) result = this.multiply(this.#powers[k]!, result);
    return result;
  }

  combine(first: bigint, second: bigint, secondLength: number): bigint {
    return this.multiply(this.shift(secondLength), first) ^ second;
  }
}

/** Each field's powers take some 3,000 bigint products: made on first use, not at every start. */
const POLYNOMIALS = { crc32: [32, 0xedb88320n], crc32c: [32, 0x82f63b78n], crc64nvme: [64, 0x9a6c9329ac4bc9b5n] } as const;
const fields = new Map<keyof typeof POLYNOMIALS, CrcField>();
function fieldOf(kind: keyof typeof POLYNOMIALS): CrcField {
  let field = fields.get(kind);
  if (!field) fields.set(kind, (field = new CrcField(POLYNOMIALS[kind][0], POLYNOMIALS[kind][1])));
  return field;
}

/**
 * The CRC of a whole made of pieces, from each piece's CRC (big-endian bytes) and length: what a
 * full-object checksum of a multipart upload is, without reading the parts again.
 */
export function combineCrcs(kind: keyof typeof POLYNOMIALS, pieces: { crc: Buffer; length: number }[]): Buffer {
  const field = fieldOf(kind);
  const bytes = kind === 'crc64nvme' ? 8 : 4;
  let crc = 0n;
  for (const piece of pieces) {
    const value = BigInt(`0x${piece.crc.toString('hex')}`);
    crc = field.combine(crc, value, piece.length);
  }
  return Buffer.from(crc.toString(16).padStart(bytes * 2, '0'), 'hex');
}
