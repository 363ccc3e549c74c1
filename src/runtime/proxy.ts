/**
 * Hands one request to a version's workerd and its answer back to the client, streaming both
 * ways. What workerd answers when the worker threw (or hung) is told apart from anything a
 * worker can answer: a bare 500 with `Connection: close` and no content type, which workerd
 * writes itself and from which a worker's own headers are stripped.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { gatherSmallAnswer, sendRequestBody } from '../proxied-bodies';

/** The request as the runtime runs it. */
export interface RunRequest {
  request: IncomingMessage;
  response: ServerResponse;
  /** `request.cf` of the worker. */
  cf: Record<string, unknown>;
  clientAddress: string;
  scheme: 'http' | 'https';
}

export type ProxyResult =
  | { result: 'ok' }
  /** The worker threw or hung: workerd answered its error, which is not passed on. */
  | { result: 'exception' }
  /** The process went away (cut off, crashed) before the answer began, or, with `written`, during it. */
  | { result: 'lost'; written: boolean; error: string };

export const CF_BLOB_HEADER = 'cf-blob';
export const PROTO_HEADER = 'x-forwarded-proto';

/** Headers of one hop only, never passed on; and what only the edge may say to the worker. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', 'transfer-encoding', 'proxy-authorization', 'proxy-authenticate']);
const EDGE_ONLY = new Set([CF_BLOB_HEADER, PROTO_HEADER, 'cf-connecting-ip', 'cf-worker']);

function forwardedHeaders(run: RunRequest): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  const incoming = run.request.headers;
  const listed = new Set(String(incoming.connection ?? '').toLowerCase().split(',').map((name) => name.trim()));
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name) || EDGE_ONLY.has(name) || listed.has(name)) continue;
    headers[name] = value;
  }
  if (incoming['transfer-encoding'] !== undefined) headers['transfer-encoding'] = 'chunked';
  headers[CF_BLOB_HEADER] = JSON.stringify(run.cf);
  headers[PROTO_HEADER] = run.scheme;
  headers['cf-connecting-ip'] = run.clientAddress;
  return headers;
}

function answerHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

/** workerd's own answer for a worker that threw or hung. */
function isRuntimeError(answer: IncomingMessage): boolean {
  return answer.statusCode === 500 && answer.headers.connection === 'close' && answer.headers['content-type'] === undefined;
}

export function proxy(run: RunRequest, socketPath: string, agent: http.Agent): Promise<ProxyResult> {
  const { request, response } = run;
  return new Promise<ProxyResult>((resolve) => {
    let settled = false;
    const settle = (result: ProxyResult) => {
      if (!settled) {
        settled = true;
        resolve(result);
      }
    };
    const outgoing = http.request(
      { socketPath, agent, method: request.method, path: request.url, headers: forwardedHeaders(run) },
      (answer) => {
        if (isRuntimeError(answer)) {
          answer.resume();
          answer.on('end', () => settle({ result: 'exception' }));
          answer.on('error', () => settle({ result: 'exception' }));
          return;
        }
        const small = gatherSmallAnswer(answer, (body) => {
          response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders(answer.headers));
          response.end(body);
          settle({ result: 'ok' });
        });
        if (!small) {
          response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders(answer.headers));
          answer.pipe(response);
          answer.on('end', () => settle({ result: 'ok' }));
        }
        answer.on('error', (error) => {
          settle({ result: 'lost', written: response.headersSent, error: error.message });
          if (response.headersSent) response.destroy();
        });
      },
    );
    outgoing.on('error', (error) => {
      if (response.headersSent) response.destroy();
      settle({ result: 'lost', written: response.headersSent, error: error.message });
    });
    // A client that goes away cancels the worker's request.
    response.on('close', () => {
      if (!response.writableFinished) outgoing.destroy();
      settle({ result: 'lost', written: true, error: 'the client went away' });
    });
    sendRequestBody(request, outgoing);
  });
}
