// The reference scheme: a shared secret for writes, an allow list of keys for reads.
// Web APIs only, so the module runs unchanged on the platform.

/**
 * Whether the request's `X-Custom-Auth-Key` equals the secret. The two SHA-256 digests are
 * compared byte by byte without stopping at the first difference, so the time taken says
 * nothing about how much of a guess was right (nor, digests being of one size, its length).
 * A missing header, or a missing or empty secret, never authorizes.
 */
export async function hasValidAuthKey(request: Request, secret: string | undefined): Promise<boolean> {
  const given = request.headers.get('X-Custom-Auth-Key');
  if (given === null || typeof secret !== 'string' || secret === '') return false;
  const encoder = new TextEncoder();
  const [givenDigest, secretDigest] = await Promise.all(
    [given, secret].map(async (text) => new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)))),
  );
  let difference = 0;
  for (let i = 0; i < secretDigest!.length; i++) difference |= givenDigest![i]! ^ secretDigest![i]!;
  return difference === 0;
}

/**
 * The keys GET and HEAD may serve, from the `ALLOW_LIST` var: comma-separated text, or an array
 * of keys (a JSON var) when a key contains a comma. Absent or malformed: nothing is served.
 */
export function allowedKeys(allowList: unknown): string[] {
  if (typeof allowList === 'string') return allowList.split(',').map((key) => key.trim()).filter((key) => key !== '');
  if (Array.isArray(allowList)) return allowList.filter((key): key is string => typeof key === 'string' && key !== '');
  return [];
}
