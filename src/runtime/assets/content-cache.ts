/**
 * Assets' bytes kept in memory once read, by account and hash (they never change for a hash),
 * up to a budget of bytes: the least recently used go first. Reads of the same asset at once
 * share one read of the store.
 */
import type { AssetContent, AssetReader } from './version-assets';

export function cachedReader(read: AssetReader, budgetBytes: number): AssetReader {
  const kept = new Map<string, AssetContent>();
  const pending = new Map<string, Promise<AssetContent | null>>();
  let bytes = 0;
  return async (account, hash) => {
    const key = `${account}/${hash}`;
    const hit = kept.get(key);
    if (hit !== undefined) {
      kept.delete(key);
      kept.set(key, hit);
      return hit;
    }
    let reading = pending.get(key);
    if (reading === undefined) {
      reading = read(account, hash).finally(() => pending.delete(key));
      pending.set(key, reading);
    }
    const content = await reading;
    if (content !== null && !kept.has(key) && content.bytes.byteLength <= budgetBytes / 4) {
      kept.set(key, content);
      bytes += content.bytes.byteLength;
      for (const [oldest, value] of kept) {
        if (bytes <= budgetBytes) break;
        kept.delete(oldest);
        bytes -= value.bytes.byteLength;
      }
    }
    return content;
  };
}
