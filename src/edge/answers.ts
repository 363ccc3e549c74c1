/**
 * The platform's own answers, as its clients see them without a browser: a status and
 * `error code: <n>` in plain text (the platform's 1xxx codes). Headers set by earlier steps stay.
 */
import type { Exchange } from './exchange';

export const PlatformError = {
  /** A hostname the platform does not serve (its DNS resolution error). */
  unknownHost: { status: 530, code: 1001 },
  /** No hostname, or an IP address as the hostname. */
  directIp: { status: 403, code: 1003 },
  /** A zone's hostname that runs no worker, with no origin to send it to. */
  noOrigin: { status: 530, code: 1016 },
  /** The worker threw, hung, or could not start. */
  workerException: { status: 500, code: 1101 },
  /** The worker exceeded its CPU time or memory. */
  exceededResources: { status: 503, code: 1102 },
} as const;

export type PlatformErrorName = keyof typeof PlatformError;

const NO_CACHE = 'private, max-age=0, no-store, no-cache, must-revalidate, post-check=0, pre-check=0';

/** Answers the platform's error; a HEAD request gets the headers alone. */
export function answerError(exchange: Exchange, name: PlatformErrorName): void {
  const { status, code } = PlatformError[name];
  sendText(exchange, status, `error code: ${code}`);
}

/** What a workers.dev hostname answers when nothing is deployed there. */
export function answerNothingHere(exchange: Exchange): void {
  sendText(exchange, 404, 'There is nothing here yet.');
}

function sendText(exchange: Exchange, status: number, text: string): void {
  const { request, response } = exchange;
  const body = Buffer.from(text);
  response.writeHead(status, { 'content-type': 'text/plain; charset=UTF-8', 'content-length': String(body.length), 'cache-control': NO_CACHE });
  response.end(request.method === 'HEAD' ? undefined : body);
}
