/**
 * The language's strings are bytes (`"\xff"` is one byte, `len("é")` is 2).
 * Inside the filter module a byte string is held as a "binary string": one
 * JavaScript character per byte (codes 0-255). Comparison, ordering, search and
 * length then work with the plain string operations, and byte order is kept.
 */
const encoder = new TextEncoder();
const lossyDecoder = new TextDecoder('utf-8');
const strictDecoder = new TextDecoder('utf-8', { fatal: true });
const ASCII = /^[\x00-\x7f]*$/;
const CHUNK = 0x2000;

export function fromBytes(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += CHUNK) {
    out += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return out;
}

function toBytes(binary: string): Uint8Array {
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Text as its UTF-8 bytes. */
export function utf8ToBinary(text: string): string {
  return ASCII.test(text) ? text : fromBytes(encoder.encode(text));
}

/** Bytes read as UTF-8; invalid sequences become U+FFFD. */
export function binaryToUtf8(binary: string): string {
  return ASCII.test(binary) ? binary : lossyDecoder.decode(toBytes(binary));
}

/** Bytes read as UTF-8, or undefined when they are not valid UTF-8. */
export function binaryToUtf8Strict(binary: string): string | undefined {
  if (ASCII.test(binary)) return binary;
  try {
    return strictDecoder.decode(toBytes(binary));
  } catch {
    return undefined;
  }
}

/** ASCII-only case folding, as the engine's `lower`, `upper` and wildcard matching do. */
export function asciiLower(binary: string): string {
  return binary.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

export function asciiUpper(binary: string): string {
  return binary.replace(/[a-z]+/g, (s) => s.toUpperCase());
}
