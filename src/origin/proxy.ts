/**
 * Passes a request on to its zone's origin with the headers the platform adds (`cf-ray`,
 * `cf-connecting-ip`, `x-forwarded-for`, `x-forwarded-proto`, `cf-visitor`, and
 * `cf-ipcountry` when the client's country is known), and its answer back to the client. An
 * origin that refuses the connection answers 521, one that does not accept it in time 522, one
 * out of reach (no route) 523, one that does not answer in time 524, one that answers something
 * that is not HTTP (or closes without answering) 520: the platform's pages, written here.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import https from 'node:https';
import { type EdgePageName, pageHtml, pageStatus } from '../edge-pages';
import { gatherSmallAnswer, sendRequestBody } from '../proxied-bodies';
import type { Origin } from './origins';

/** Headers of one connection only (RFC 9110 7.6.1), never passed on, plus those the edge sets itself. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);
const SET_BY_THE_EDGE = new Set(['cf-ray', 'cf-connecting-ip', 'cf-visitor', 'x-forwarded-proto', 'cf-ipcountry', 'cf-worker', 'x-forwarded-for']);

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 512 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 512 }),
};

export interface ProxyInput {
  request: IncomingMessage;
  response: ServerResponse;
  origin: Origin;
  /** The `cf-ray` value (`<16 hex>-<colo>`), sent to the origin and answered to the client. */
  cfRay: string;
  /** The client's address as the edge believes it. */
  clientIp: string;
  scheme: 'http' | 'https';
  /** The client's country, when the platform knows it (`cf-ipcountry`). */
  country?: string | undefined;
  /** The hostname the client asked for, for the error pages. */
  host: string;
}

export type ProxyOutcome =
  /** The origin answered; its status and headers went to the client (and `headMs` after the request left). */
  | { kind: 'answered'; status: number; headers: [string, string][]; headMs: number }
  /** The origin failed: the client got the platform's page (when nothing was sent yet). */
  | { kind: 'failed'; status: number; page: EdgePageName; reason: string };

export function proxyToOrigin(input: ProxyInput): Promise<ProxyOutcome> {
  const { request, response, origin } = input;
  const upstream = origin.upstream;
  const secure = upstream.protocol === 'https:';
  const started = Date.now();
  return new Promise<ProxyOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: ProxyOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(responseTimer);
      resolve(outcome);
    };
    const fail = (page: EdgePageName, reason: string) => {
      outgoing.destroy();
      writePage(input, page);
      settle({ kind: 'failed', status: pageStatus(page), page, reason });
    };

    const outgoing = (secure ? https : http).request({
      protocol: upstream.protocol,
      hostname: upstream.hostname.replace(/^\[|\]$/g, ''),
      port: upstream.port || (secure ? 443 : 80),
      method: request.method,
      path: request.url ?? '/',
      headers: forwardedHeaders(input),
      agent: agents[secure ? 'https:' : 'http:'],
      setHost: false,
      ...(secure ? { servername: request.headers.host?.replace(/:\d+$/, '') } : {}),
    });
    let responseTimer: NodeJS.Timeout | undefined;
    const connectTimer = setTimeout(() => fail('originConnectTimeout', `no connection to ${upstream.host} within ${origin.connectTimeoutMs} ms`), origin.connectTimeoutMs);
    const connected = () => {
      clearTimeout(connectTimer);
      responseTimer = setTimeout(() => fail('originTimeout', `no answer from ${upstream.host} within ${origin.responseTimeoutMs} ms`), origin.responseTimeoutMs);
    };
    outgoing.once('socket', (socket) => {
      if (!socket.connecting) connected();
      else socket.once(secure ? 'secureConnect' : 'connect', connected);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      if (error.code === 'ECONNREFUSED') fail('originDown', `${upstream.host} refused the connection`);
      else if (error.code === 'ETIMEDOUT') fail('originConnectTimeout', `${upstream.host}: ${error.code}`);
      else if (error.code === 'EHOSTUNREACH' || error.code === 'ENETUNREACH') fail('originUnreachable', `${upstream.host}: ${error.code}`);
      else fail('unknownOriginError', `${upstream.host}: ${error.code ?? error.message}`);
    });
    outgoing.once('response', (answer) => {
      if (settled) {
        answer.resume();
        return;
      }
      const headers = answeredHeaders(answer, input.cfRay);
      settle({ kind: 'answered', status: answer.statusCode ?? 502, headers, headMs: Date.now() - started });
      answer.on('error', () => response.destroy());
      answer.once('aborted', () => response.destroy());
      const small = gatherSmallAnswer(answer, (body) => {
        if (response.destroyed) return;
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers.flat());
        response.end(body);
      });
      if (small) return;
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers.flat());
      answer.pipe(response);
    });
    // The client going away ends the exchange with the origin too.
    response.once('close', () => {
      if (!response.writableFinished) outgoing.destroy();
    });
    request.on('error', () => outgoing.destroy());
    sendRequestBody(request, outgoing);
  });
}

/** The client's headers without hop-by-hop ones, with the platform's own added. */
function forwardedHeaders(input: ProxyInput): OutgoingHttpHeaders {
  const { request } = input;
  const connectionTokens = new Set(String(request.headers.connection ?? '').toLowerCase().split(',').map((token) => token.trim()));
  const headers: OutgoingHttpHeaders = {};
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || SET_BY_THE_EDGE.has(lower) || connectionTokens.has(lower)) continue;
    const value = raw[i + 1]!;
    const existing = headers[name];
    headers[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [String(existing), value];
  }
  // A body sent in chunks goes on in chunks; its length is the client's otherwise.
  if (request.headers['transfer-encoding'] !== undefined) headers['transfer-encoding'] = 'chunked';
  const forwardedFor = request.headers['x-forwarded-for'];
  const chain = (Array.isArray(forwardedFor) ? forwardedFor.join(', ') : (forwardedFor ?? '')).trim();
  const last = chain.split(',').at(-1)?.trim();
  headers['x-forwarded-for'] = chain === '' ? input.clientIp : last === input.clientIp ? chain : `${chain}, ${input.clientIp}`;
  headers['cf-connecting-ip'] = input.clientIp;
  headers['x-forwarded-proto'] = input.scheme;
  headers['cf-visitor'] = JSON.stringify({ scheme: input.scheme });
  headers['cf-ray'] = input.cfRay;
  if (input.country) headers['cf-ipcountry'] = input.country;
  return headers;
}

/** The origin's answer headers for the client: hop-by-hop ones left out, the edge's `cf-ray` and `server` set. */
function answeredHeaders(answer: IncomingMessage, cfRay: string): [string, string][] {
  const connectionTokens = new Set(String(answer.headers.connection ?? '').toLowerCase().split(',').map((token) => token.trim()));
  const headers: [string, string][] = [];
  const raw = answer.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(lower) || connectionTokens.has(lower) || lower === 'cf-ray' || lower === 'server') continue;
    headers.push([raw[i]!, raw[i + 1]!]);
  }
  headers.push(['cf-ray', cfRay], ['server', 'cloudflare']);
  return headers;
}

/** Writes one of the platform's pages, unless the answer has begun (then the connection is cut). */
export function writePage(target: { request: IncomingMessage; response: ServerResponse; cfRay: string; host: string }, page: EdgePageName, extra: IncomingHttpHeaders = {}): void {
  const { request, response } = target;
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = Buffer.from(pageHtml(page, { host: target.host, rayId: target.cfRay, at: Date.now() }));
  response.writeHead(pageStatus(page), {
    ...extra,
    'content-type': 'text/html; charset=UTF-8',
    'content-length': String(body.length),
    'cache-control': 'private, max-age=0, no-store, no-cache, must-revalidate, post-check=0, pre-check=0',
    'cf-ray': target.cfRay,
    server: 'cloudflare',
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}
