/**
 * Where the tail workers of traced versions post their traces: an HTTP server on a Unix socket in
 * the runtime's private directory. Each traced version's process carries a grant of its own
 * (added by workerd to every post, unseen by any worker's code) naming the account, script and
 * version, so a trace is told to the tails of the script the grant names, whatever the trace
 * itself says.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GrantedService } from '../granted-socket';

/** The header workerd adds to every post of a tail worker. */
export const TRACE_GRANT_HEADER = 'cf-edge-trace';

/** A post larger than this is refused (a trace holds at most what the platform keeps of logs). */
const MAX_POST_BYTES = 16 * 1024 * 1024;

export interface TraceSource {
  account: string;
  script: string;
  version: string;
}

/** The traces of one post: workerd's trace items, and each one's request headers unredacted (for filters only). */
export interface Traces extends TraceSource {
  events: Record<string, unknown>[];
  headers: Record<string, string>[];
}

/**
 * A cron trigger's run reaches the worker through the trigger service's binding, and workerd's
 * trace of it says `ok` even when the handler threw (the binding's caller gets the failure); the
 * platform says `exception`, as for a request.
 */
function asThePlatformSays(event: Record<string, unknown>): Record<string, unknown> {
  const scheduled = typeof (event.event as { cron?: unknown } | null | undefined)?.cron === 'string';
  if (scheduled && event.outcome === 'ok' && Array.isArray(event.exceptions) && event.exceptions.length > 0) return { ...event, outcome: 'exception' };
  return event;
}

export class TraceSink extends GrantedService<TraceSource> {
  readonly #deliver: (traces: Traces) => void;
  readonly #report: (line: string) => void;

  constructor(deliver: (traces: Traces) => void, report: (line: string) => void) {
    super(TRACE_GRANT_HEADER);
    this.#deliver = deliver;
    this.#report = report;
  }

  protected serve(request: IncomingMessage, response: ServerResponse, source: TraceSource | undefined): void {
    if (!source || request.method !== 'POST') {
      request.resume();
      response.writeHead(403).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_POST_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      response.writeHead(204).end();
      if (size > MAX_POST_BYTES) return this.#report(`${source.script} (version ${source.version}): a trace of ${size} bytes was dropped (over ${MAX_POST_BYTES})`);
      try {
        const posted = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events?: unknown; headers?: unknown };
        const events = Array.isArray(posted.events) ? (posted.events as Record<string, unknown>[]).map(asThePlatformSays) : [];
        const headers = Array.isArray(posted.headers) ? (posted.headers as Record<string, string>[]) : [];
        this.#deliver({ ...source, events, headers });
      } catch (error) {
        this.#report(`${source.script} (version ${source.version}): a trace could not be read: ${(error as Error).message}`);
      }
    });
    request.on('error', () => response.destroy());
  }
}
