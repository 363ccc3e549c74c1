/**
 * The judging step, once the request is routed: who the request comes from (trusted proxies, the
 * table of clients), the platform's limits (414, 431, 413 before any rule runs), then, for a
 * zone's hostname, the zone's deployed rules over the request, the judgment the simulator traces.
 * A block answers 403 and the platform's page (or the rule's own response), a challenge 403 with
 * `cf-mitigated: challenge` (a client here never solves one); a rule that cannot be evaluated, or
 * a deployment that cannot be read, answers 500: a request is never let through unjudged.
 */
import type { IncomingMessage } from 'node:http';
import { type EdgeStep, type Exchange, type Route, answered, cfRay } from '../edge';
import type { EdgePageName } from '../edge-pages';
import {
  BODY_INSPECTION_LIMIT_BYTES,
  type ClientTable,
  type FieldOverrides,
  Judgment,
  type LiveDeployments,
  type Termination,
  type TrustedProxies,
  type ZoneDeployment,
  describeLocation,
  judgesRequests,
  liveRequest,
  requestFields,
} from '../judge';
import { logsRequests } from '../logpush';
import { writePage } from '../origin';
import { hasBody, readBodyStart } from './body-start';
import { judged } from './notes';
import { limitExceeded } from './request-limits';

export interface JudgeStepOptions {
  deployments: LiveDeployments;
  proxies: TrustedProxies;
  clients: ClientTable;
  /** Hears of requests answered 500 and why (never a secret). */
  report: (line: string) => void;
}

const NO_BODY = { text: '', size: 0 };

export function judgeStep(options: JudgeStepOptions): EdgeStep {
  return {
    name: 'judge',
    async run(exchange) {
      const { request } = exchange;
      exchange.clientAddress = options.proxies.clientAddress(request.socket.remoteAddress ?? '', one(request, 'cf-connecting-ip'), one(request, 'x-forwarded-for'));
      const known = options.clients.fieldsOf(exchange.clientAddress);
      Object.assign(exchange.cf, cfProperties(known));
      const zoneId = zoneOf(exchange.route);
      let deployment: ZoneDeployment | null = null;
      if (zoneId !== null) {
        try {
          const found = options.deployments.get(zoneId);
          deployment = found instanceof Promise ? await found : found;
        } catch (error) {
          options.report(`ray ${exchange.rayId}: the rules of zone ${zoneId} cannot be read (${error instanceof Error ? error.message : String(error)}): answered 500`);
          return answerPage(exchange, 'notJudged');
        }
      }
      const exceeded = limitExceeded(request, deployment?.zone.plan.legacy_id);
      if (exceeded !== null) return answerPage(exchange, exceeded);
      // With no rule to run and no log entry to write, there is nothing to read the request for.
      if (deployment === null || (!judgesRequests(deployment) && !logsRequests(deployment))) return;
      const body = hasBody(request) ? await readBodyStart(request, BODY_INSPECTION_LIMIT_BYTES) : NO_BODY;
      if (answered(exchange)) return;
      const edgeRequest = liveRequest({
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        httpVersion: request.httpVersion,
        rawHeaders: request.rawHeaders,
        scheme: exchange.scheme,
        clientIp: exchange.clientAddress,
        body: body.text,
        bodySize: body.size,
        timestampMs: exchange.received,
        rayId: exchange.rayId,
      });
      const context = requestFields(edgeRequest, known);
      const judgment = new Judgment(deployment).requestPhases(context);
      judged.set(exchange, { deployment, request: edgeRequest, context, judgment });
      if (judgment.failures.length > 0) {
        const failure = judgment.failures[0]!;
        options.report(`ray ${exchange.rayId}: rule ${describeLocation(failure.rule)} cannot be evaluated (${failure.message.split('\n')[0]}): answered 500`);
        return answerPage(exchange, 'notJudged');
      }
      if (judgment.terminated) answerTermination(exchange, judgment.terminated);
    },
  };
}

/** The zone of a route: a zone's hostname, whether a worker runs on it or its origin answers. */
function zoneOf(route: Route | undefined): string | null {
  if (route?.kind === 'zone') return route.zone.id;
  if (route?.kind === 'worker' && route.via !== 'workers.dev') return route.via.zone.id;
  return null;
}

function answerTermination(exchange: Exchange, terminated: Termination): void {
  const action = terminated.rule.action;
  if (action === 'block' && terminated.content !== null) {
    const { request, response } = exchange;
    const body = Buffer.from(terminated.content);
    response.writeHead(terminated.status, { 'content-type': terminated.contentType, 'content-length': String(body.length), 'cache-control': 'private, max-age=0, no-store' });
    response.end(request.method === 'HEAD' ? undefined : body);
  } else if (action === 'block') {
    answerPage(exchange, 'blocked');
  } else {
    answerPage(exchange, 'challenge', { 'cf-mitigated': 'challenge' });
  }
}

function answerPage(exchange: Exchange, page: EdgePageName, extra: Record<string, string> = {}): void {
  writePage({ request: exchange.request, response: exchange.response, cfRay: cfRay(exchange.rayId), host: exchange.hostname }, page, extra);
}

/** What a worker's `request.cf` carries of what the platform knows of the client. */
function cfProperties(known: FieldOverrides): Record<string, unknown> {
  const cf: Record<string, unknown> = {};
  if (typeof known['ip.src.country'] === 'string') cf.country = known['ip.src.country'];
  if (typeof known['ip.src.asnum'] === 'number') cf.asn = known['ip.src.asnum'];
  if (typeof known['cf.bot_management.score'] === 'number') cf.botManagement = { score: known['cf.bot_management.score'] };
  return cf;
}

function one(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
