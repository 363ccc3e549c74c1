/**
 * Object keys in request paths. A key may hold slashes: the official client sends them encoded
 * (`docs%2Freadme.txt`), wrangler sends them as they are (`docs/readme.txt`). A path template
 * parameter never spans a slash, so everything after `/objects/` is re-encoded into one segment
 * before routing; the key the handler sees is the same either way.
 */
const OBJECT_PATH = /^(.*\/accounts\/[^/]+\/r2\/buckets\/[^/]+\/objects\/)(.+)$/;

/**
 * The URL (path and query) with its object key made one segment (slashes as `%2F`); other URLs
 * unchanged.
 */
export function oneSegmentObjectKey(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const match = OBJECT_PATH.exec(path);
  if (!match || !match[2]!.includes('/')) return url;
  return match[1]! + match[2]!.replaceAll('/', '%2F') + (queryAt === -1 ? '' : url.slice(queryAt));
}
