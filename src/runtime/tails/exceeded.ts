/**
 * The trace of a request whose worker was cut off (CPU time, memory): its process is killed with
 * the tail worker in it, so the runtime tells that invocation to the tails itself, in the shape
 * workerd gives the others (the request's headers redacted by the same rule).
 */
import type { RunRequest } from '../proxy';

/** Header names whose values workerd's traces redact: cookies, and anything naming a credential. */
const REDACTED = /auth|jwt|key|secret|token/;

export function redactedHeader(name: string): boolean {
  return name === 'cookie' || REDACTED.test(name);
}

export function exceededEvent(run: RunRequest, outcome: 'exceededCpu' | 'exceededMemory', started: number): { event: Record<string, unknown>; headers: Record<string, string> } {
  const { request } = run;
  const headers: Record<string, string> = {};
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    headers[name] = text;
    shown[name] = redactedHeader(name) ? 'REDACTED' : text;
  }
  headers['cf-connecting-ip'] = run.clientAddress;
  shown['cf-connecting-ip'] = run.clientAddress;
  const host = String(request.headers.host ?? 'localhost');
  const event = {
    wallTime: Date.now() - started,
    cpuTime: 0,
    truncated: false,
    executionModel: 'stateless',
    outcome,
    scriptName: null,
    diagnosticsChannelEvents: [],
    exceptions: [],
    logs: [],
    eventTimestamp: started,
    event: { request: { url: `${run.scheme}://${host}${request.url ?? '/'}`, method: request.method ?? 'GET', headers: shown, cf: run.cf } },
  };
  return { event, headers };
}
