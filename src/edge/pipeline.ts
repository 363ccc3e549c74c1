/**
 * The edge's steps, in order: read the request (its ray id, answered in `cf-ray` whoever answers),
 * route by host, the steps before the answer (rules judging, ... : they see the route, and so the
 * zone), respond (a worker, a zone's origin, or the platform's own answer), then the steps after
 * the answer (logs, ...). Each stage is a list a caller fills; the edge itself only brings
 * routing and the platform's answers. Routing only looks up: nothing runs before the steps.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerError, answerNothingHere, PlatformError } from './answers';
import { answered, type Exchange } from './exchange';
import { cfRay, newRayId } from './ray';
import type { RoutingTable, WorkerTarget } from './routing';

/** A step before the answer, after routing: it may add to the exchange (`cf`, response headers) or answer it, which ends the request. */
export interface EdgeStep {
  /** Names the step in the outcome when it answers. */
  name: string;
  run(exchange: Exchange): void | Promise<void>;
}

/** What running a worker came to. Unless `ok`, nothing was written when `written` is false and the edge answers the platform's error. */
export type WorkerResult =
  | { result: 'ok'; version: string }
  /** Nothing of the script is deployed any more (a deletion on its way to the routes): routed as if no route named it. */
  | { result: 'not-deployed' }
  | { result: 'exception' | 'exceeded-resources'; version?: string; error?: string; written: boolean };

/** Runs deployed workers: writes the worker's answer to `exchange.response`, or says why it could not. */
export interface WorkerDispatcher {
  dispatch(target: WorkerTarget, exchange: Exchange): Promise<WorkerResult>;
}

export interface EdgeStages {
  /** In order, once the request is routed and before it is answered. */
  before?: EdgeStep[];
  /** Answers a zone's request that runs no worker; without one the platform answers that there is no origin (1016). */
  origin?: (exchange: Exchange) => Promise<void>;
  /** Once the answer is complete, or the client went away (`response.writableFinished` tells which), in order. */
  after?: ((exchange: Exchange) => void)[];
}

export interface Pipeline {
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

export function pipeline(stages: EdgeStages, routes: () => RoutingTable, workers: WorkerDispatcher, report: (line: string) => void): Pipeline {
  const before = stages.before ?? [];
  const after = stages.after ?? [];

  const respond = async (exchange: Exchange): Promise<void> => {
    const route = exchange.route!;
    switch (route.kind) {
      case 'worker': {
        const ran = await workers.dispatch(route.target, exchange);
        if (ran.result === 'not-deployed') {
          exchange.route = route.via === 'workers.dev' ? { kind: 'workers-dev-empty' } : { kind: 'zone', zone: route.via.zone };
          return respond(exchange);
        }
        if (ran.result === 'ok') {
          exchange.outcome = { kind: 'worker', script: route.target.script, version: ran.version, result: 'ok' };
          return;
        }
        const failure = ran.result === 'exception' ? 'workerException' : 'exceededResources';
        const outcome = { kind: 'worker' as const, script: route.target.script, ...(ran.version ? { version: ran.version } : {}), ...(ran.error ? { error: ran.error } : {}) };
        if (ran.written) {
          exchange.outcome = { ...outcome, result: 'canceled' };
          return;
        }
        exchange.outcome = { ...outcome, result: ran.result, code: ran.result === 'exception' ? 1101 : 1102 };
        answerError(exchange, failure);
        return;
      }
      case 'zone':
        if (stages.origin) {
          exchange.outcome = { kind: 'origin' };
          await stages.origin(exchange);
          return;
        }
        exchange.outcome = { kind: 'platform', ...PlatformError.noOrigin };
        answerError(exchange, 'noOrigin');
        return;
      case 'workers-dev-empty':
        exchange.outcome = { kind: 'platform', status: 404 };
        answerNothingHere(exchange);
        return;
      case 'unknown-host':
        exchange.outcome = { kind: 'platform', ...PlatformError.unknownHost };
        answerError(exchange, 'unknownHost');
        return;
      case 'direct-ip':
        exchange.outcome = { kind: 'platform', ...PlatformError.directIp };
        answerError(exchange, 'directIp');
        return;
    }
  };

  return {
    async handle(request, response) {
      const exchange = readRequest(request, response);
      response.once('close', () => {
        for (const step of after) {
          try {
            step(exchange);
          } catch (error) {
            report(`an after-answer step failed: ${describe(error)}`);
          }
        }
      });
      try {
        exchange.route = routes().resolve(exchange.hostname, exchange.scheme, request.url ?? '/');
        for (const step of before) {
          await step.run(exchange);
          if (answered(exchange)) {
            exchange.outcome ??= { kind: 'step', step: step.name };
            return;
          }
        }
        await respond(exchange);
      } catch (error) {
        report(`${request.method} ${exchange.hostname}${request.url}: ${describe(error)}`);
        if (!response.headersSent) {
          response.writeHead(500, { 'content-type': 'text/plain; charset=UTF-8', connection: 'close' });
          response.end('Internal Server Error');
        } else response.destroy();
      }
    },
  };
}

/** The read step: the exchange of a request, its ray id answered in `cf-ray` by whoever answers. */
function readRequest(request: IncomingMessage, response: ServerResponse): Exchange {
  const rayId = newRayId();
  response.setHeader('cf-ray', cfRay(rayId));
  return {
    request,
    response,
    received: Date.now(),
    rayId,
    hostname: hostnameOf(request.headers.host),
    scheme: 'http',
    clientAddress: request.socket.remoteAddress ?? '',
    cf: {},
  };
}

/** The Host header's name: lower-case, without a port, brackets kept around an IPv6 address. */
export function hostnameOf(host: string | undefined): string {
  if (!host) return '';
  const value = host.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end < 0 ? value : value.slice(0, end + 1);
  }
  const colon = value.indexOf(':');
  const name = colon < 0 ? value : value.slice(0, colon);
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
