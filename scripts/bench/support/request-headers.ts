// Helpers of the benchmarks (not benchmarks themselves: `npm run bench` runs only the files one level up).
import type { Request as CannonRequest } from 'autocannon';

/** An autocannon request's headers (whose values may be undefined) as fetch headers, with credentials. */
export function requestHeaders(authorization: string, headers: CannonRequest['headers']): Headers {
  const result = new Headers({ authorization });
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) result.set(name, String(value));
  return result;
}
