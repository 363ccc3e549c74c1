/**
 * The log step, once the answer is complete: the response phase over the answer's head (it only
 * logs or skips: no managed ruleset runs there), then the request's entry for each enabled
 * `http_requests` job of its zone (the fields each selects, the rule that decided, the zone's
 * custom fields, `RayID`), handed to the delivery.
 */
import type { ServerResponse } from 'node:http';
import { COLO, type Exchange } from '../edge';
import { type HeaderLine, type ResponseHead, responseFields } from '../judge';
import { type LogDelivery, logRequest, logsRequests } from '../logpush';
import { judged, originAnswers } from './notes';

export function logStep(delivery: LogDelivery): (exchange: Exchange) => void {
  return (exchange) => {
    const judgedRequest = judged.get(exchange);
    if (judgedRequest === undefined || !logsRequests(judgedRequest.deployment)) return;
    const { response, request } = exchange;
    const answer: ResponseHead = { status: response.statusCode, headers: headerLines(response) };
    const outcome = exchange.outcome;
    const originAnswer = originAnswers.get(exchange);
    const reachedOrigin = (outcome?.kind === 'origin' && originAnswer?.kind === 'answered') || (outcome?.kind === 'worker' && outcome.result === 'ok');
    const { judgment, context } = judgedRequest;
    judgment.responsePhase(reachedOrigin ? { ...context, ...responseFields(answer) } : null);
    const terminated = judgment.terminated;
    const length = Number(response.getHeader('content-length'));
    logRequest(delivery, judgedRequest.deployment, {
      request: judgedRequest.request,
      context,
      outcome: { action: terminated?.rule.action ?? null, rule: terminated?.rule ?? null, status: response.statusCode },
      edgeContentType: reachedOrigin ? null : String(response.getHeader('content-type') ?? ''),
      reachedOrigin,
      originResponse: reachedOrigin ? answer : undefined,
      matched: judgment.matched,
      live: {
        endTimestampMs: Date.now(),
        clientPort: request.socket.remotePort,
        colo: COLO,
        responseBodyBytes: Number.isFinite(length) ? length : undefined,
        originDurationMs: originAnswer?.kind === 'answered' ? originAnswer.headMs : undefined,
        workerScriptName: outcome?.kind === 'worker' ? outcome.script : undefined,
      },
    });
  };
}

function headerLines(response: ServerResponse): HeaderLine[] {
  const lines: HeaderLine[] = [];
  for (const [name, value] of Object.entries(response.getHeaders())) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) lines.push([name, String(one)]);
  }
  return lines;
}
