/** Literals of Cap'n Proto's text format, for workerd's configuration. */

/** A Text literal: printable ASCII as is, everything else escaped (UTF-8 bytes as \xHH). */
export function text(value: string): string {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.includes(0)) throw new RangeError('text for workerd cannot hold a NUL character');
  let out = '"';
  for (const byte of bytes) {
    if (byte === 0x22) out += '\\"';
    else if (byte === 0x5c) out += '\\\\';
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `${out}"`;
}

/** A Data literal. */
export function data(bytes: Uint8Array): string {
  return `0x"${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}"`;
}

/** A list literal. */
export function list(items: string[]): string {
  return `[${items.join(', ')}]`;
}
