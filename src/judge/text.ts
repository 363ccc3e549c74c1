/** Cuts a string to at most `limit` bytes of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, limit: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= limit) return text;
  let end = limit;
  // A byte 10xxxxxx continues a character begun before it: back off to that character's start.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}
