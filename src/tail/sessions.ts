/**
 * Live tails: the sessions `POST .../workers/scripts/{name}/tails` creates, each with an
 * unguessable id, its filters, an expiry and at most one WebSocket client at a time; the traces
 * of a script's invocations sent to the clients of its sessions. A script is traced (its
 * versions run with the platform's tail worker) only while one of its sessions has a client, so
 * a script nobody tails pays nothing.
 *
 * Sessions live in the process that created them (a restart ends them, as it ends their
 * connections); the traces are those of the edge in the same process.
 */
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import { compileFilters, type FilteredTrace, type TailFilter } from './filters';

/** The platform's limit: at most this many tails of one script at once. */
export const MAX_TAILS_PER_SCRIPT = 10;
/** How long a tail lives after it is created. */
export const TAIL_TTL_MS = 6 * 60 * 60 * 1000;
/** A client reading so slowly that this much waits to be sent loses the traces that come meanwhile. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/** A tail as the API answers it. */
export interface TailView {
  id: string;
  url: string;
  expires_at: string;
}

/** Traces of one script's invocations, from the runtime. */
export interface ScriptTraces {
  account: string;
  script: string;
  version: string;
  events: Record<string, unknown>[];
  headers: Record<string, string>[];
}

/** A refusal of the tail API, with the platform's status and code. */
export class TailRefusal extends Error {
  override readonly name = 'TailRefusal';
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The code the platform answers a tail over its limit with. */
export const TOO_MANY_TAILS = 10057;

export interface LiveTailsOptions {
  /** Turns tracing of a script on (resolving once its next invocation is traced) or off. */
  trace(account: string, script: string, on: boolean): Promise<void>;
  ttlMs?: number;
  maxPerScript?: number;
  now?: () => number;
  random?: () => number;
  /** Something worth the platform's log (never a trace's content). */
  report?: (line: string) => void;
}

interface Session {
  id: string;
  account: string;
  script: string;
  url: string;
  expiresAt: number;
  passes: (trace: FilteredTrace) => boolean;
  client: WebSocket | undefined;
  /** Set while the client's connection waits for the script to be traced. */
  connecting: boolean;
  timer: NodeJS.Timeout;
}

export class LiveTails {
  readonly #options: LiveTailsOptions;
  readonly #sessions = new Map<string, Session>();
  /** Sessions by `<account>/<script>`. */
  readonly #byScript = new Map<string, Set<Session>>();

  constructor(options: LiveTailsOptions) {
    this.#options = options;
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }

  /**
   * A new tail of a script (its existence is the caller's to check). `origin` is the WebSocket
   * origin its URL is served at (`ws://host:port`), `clientAddress` what `--ip self` means.
   */
  create(input: { account: string; script: string; filters: readonly TailFilter[]; clientAddress: string; origin: string }): TailView {
    const key = `${input.account}/${input.script}`;
    const existing = this.#byScript.get(key) ?? new Set<Session>();
    const max = this.#options.maxPerScript ?? MAX_TAILS_PER_SCRIPT;
    if (existing.size >= max) throw new TailRefusal(429, TOO_MANY_TAILS, `${input.script} already has ${max} tails, the most a script may have at once: delete one (or let it expire) first`);
    const passes = compileFilters(input.filters, input.clientAddress, this.#options.random);
    const id = randomBytes(16).toString('hex');
    const ttl = this.#options.ttlMs ?? TAIL_TTL_MS;
    const session: Session = {
      id,
      account: input.account,
      script: input.script,
      url: `${input.origin}/tails/${id}`,
      expiresAt: this.#now() + ttl,
      passes,
      client: undefined,
      connecting: false,
      timer: setTimeout(() => this.#end(session, 'the tail expired'), ttl),
    };
    session.timer.unref();
    this.#sessions.set(id, session);
    this.#byScript.set(key, existing.add(session));
    return view(session);
  }

  /** The script's tails that have not expired. */
  list(account: string, script: string): TailView[] {
    return [...(this.#byScript.get(`${account}/${script}`) ?? [])].map(view);
  }

  /** Deletes one tail of the script (its client, if any, is told and closed); false when there is none by that id. */
  remove(account: string, script: string, id: string): boolean {
    const session = this.#sessions.get(id);
    if (!session || session.account !== account || session.script !== script) return false;
    this.#end(session, 'the tail was deleted');
    return true;
  }

  /** Ends every tail of a script (it was deleted). */
  removeScript(account: string, script: string): void {
    for (const session of [...(this.#byScript.get(`${account}/${script}`) ?? [])]) this.#end(session, 'the script was deleted');
  }

  /** The session a WebSocket URL's id names, if it is live. */
  session(id: string): Session | undefined {
    const session = this.#sessions.get(id);
    return session && session.expiresAt > this.#now() ? session : undefined;
  }

  /** Takes a session's client once its script is traced; refuses a second client. */
  async admit(session: Session): Promise<boolean> {
    if (session.client || session.connecting) return false;
    session.connecting = true;
    try {
      await this.#options.trace(session.account, session.script, true);
    } finally {
      session.connecting = false;
    }
    return this.#sessions.get(session.id) === session;
  }

  /** The client of a session, connected. */
  attach(session: Session, client: WebSocket): void {
    if (this.#sessions.get(session.id) !== session) {
      client.close(1000, 'the tail ended');
      return;
    }
    session.client = client;
    client.on('close', () => {
      if (session.client !== client) return;
      session.client = undefined;
      this.#untraceIfIdle(session.account, session.script);
    });
  }

  /** A session whose client did not connect after all (the handshake failed). */
  abandon(session: Session): void {
    if (!session.client) this.#untraceIfIdle(session.account, session.script);
  }

  /** Sends each trace to the clients of the script's sessions whose filters it passes. */
  deliver(traces: ScriptTraces): void {
    const sessions = this.#byScript.get(`${traces.account}/${traces.script}`);
    if (!sessions) return;
    traces.events.forEach((event, index) => {
      const trace: FilteredTrace = { event, headers: traces.headers[index] ?? {}, version: traces.version };
      let message: string | undefined;
      for (const session of sessions) {
        const client = session.client;
        if (!client || client.readyState !== client.OPEN || !session.passes(trace)) continue;
        if (client.bufferedAmount > MAX_BUFFERED_BYTES) continue;
        message ??= JSON.stringify({ ...event, scriptName: traces.script, scriptVersion: { id: traces.version } });
        client.send(message);
      }
    });
  }

  /** Ends every tail (the platform stops). */
  close(): void {
    for (const session of [...this.#sessions.values()]) this.#end(session, 'the platform is stopping', 1001);
  }

  #end(session: Session, reason: string, code = 1000): void {
    if (this.#sessions.get(session.id) !== session) return;
    clearTimeout(session.timer);
    this.#sessions.delete(session.id);
    const key = `${session.account}/${session.script}`;
    const sessions = this.#byScript.get(key);
    sessions?.delete(session);
    if (sessions?.size === 0) this.#byScript.delete(key);
    const client = session.client;
    session.client = undefined;
    if (client) client.close(code, reason);
    this.#untraceIfIdle(session.account, session.script);
  }

  #untraceIfIdle(account: string, script: string): void {
    const sessions = this.#byScript.get(`${account}/${script}`);
    if (sessions && [...sessions].some((session) => session.client || session.connecting)) return;
    this.#options.trace(account, script, false).catch((error: unknown) => this.#options.report?.(`tails of ${script}: ${error instanceof Error ? error.message : String(error)}`));
  }
}

function view(session: Session): TailView {
  return { id: session.id, url: session.url, expires_at: new Date(session.expiresAt).toISOString() };
}

export type { Session as TailSession };
