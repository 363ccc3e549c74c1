/**
 * What the edge takes before any rule runs, as the platform's limits: a URL of 32 KB at most
 * (414), request headers of 128 KB at most (431), a body no larger than the zone's plan allows
 * (413: 100 MB on Free and Pro, 200 MB on Business, 500 MB on Enterprise). A request the HTTP
 * parser cannot read at all is a 400, answered by the server's parser-error handler.
 */
import type { IncomingMessage } from 'node:http';
import type { EdgePageName } from '../edge-pages';

export const MAX_URL_BYTES = 32 * 1024;
export const MAX_HEADER_BYTES = 128 * 1024;
const MB = 1024 * 1024;
/** Largest request body by plan (`legacy_id`); another plan gets the smallest. */
export const MAX_BODY_BYTES: Readonly<Record<string, number>> = { free: 100 * MB, pro: 100 * MB, business: 200 * MB, enterprise: 500 * MB };

export function maxBodyBytes(plan: string | undefined): number {
  return MAX_BODY_BYTES[plan ?? 'free'] ?? MAX_BODY_BYTES.free!;
}

/** The page a request gets for exceeding a limit, or null when it is within them all. */
export function limitExceeded(request: IncomingMessage, plan: string | undefined): EdgePageName | null {
  if (Buffer.byteLength(request.url ?? '') > MAX_URL_BYTES) return 'uriTooLong';
  let headerBytes = 0;
  const raw = request.rawHeaders;
  // Each line as sent: name, ": ", value, CRLF.
  for (let i = 0; i < raw.length; i += 2) headerBytes += raw[i]!.length + raw[i + 1]!.length + 4;
  if (headerBytes > MAX_HEADER_BYTES) return 'headersTooLarge';
  const length = request.headers['content-length'];
  if (length !== undefined && Number(length) > maxBodyBytes(plan)) return 'bodyTooLarge';
  return null;
}
