// Live tails without a platform: the limit per script, expiry, deletion, what turns tracing of a
// script on and off, and each of wrangler's filters applied to traces as the runtime hands them.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { LiveTails, TailFilterError, TailRefusal, type ScriptTraces, type TailFilter } from '../../src/tail';

/** A connected client as the sessions see one: what it was sent, how it was closed. */
class FakeClient extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: any[] = [];
  closedWith: [number, string] | undefined;
  send(message: string): void {
    this.sent.push(JSON.parse(message));
  }
  close(code: number, reason: string): void {
    this.closedWith = [code, reason];
    this.readyState = 3;
    this.emit('close');
  }
}

function setup(options: { ttlMs?: number; now?: () => number; random?: () => number } = {}) {
  const traced: string[] = [];
  const tails = new LiveTails({ trace: async (account, script, on) => void traced.push(`${on ? 'on' : 'off'} ${account}/${script}`), ...options });
  return { tails, traced };
}

const create = (tails: LiveTails, filters: TailFilter[] = [], script = 'logger') => tails.create({ account: 'a1', script, filters, clientAddress: '::ffff:10.0.0.7', origin: 'ws://127.0.0.1:8787' });

async function connect(tails: LiveTails, id: string): Promise<FakeClient> {
  const session = tails.session(id)!;
  expect(await tails.admit(session)).toBe(true);
  const client = new FakeClient();
  tails.attach(session, client as unknown as WebSocket);
  return client;
}

function trace(overrides: { outcome?: string; method?: string; headers?: Record<string, string>; logs?: unknown[][]; version?: string; script?: string; account?: string } = {}): ScriptTraces {
  return {
    account: overrides.account ?? 'a1',
    script: overrides.script ?? 'logger',
    version: overrides.version ?? 'v-1',
    events: [
      {
        outcome: overrides.outcome ?? 'ok',
        scriptName: null,
        logs: (overrides.logs ?? [['hello']]).map((message) => ({ message, level: 'log', timestamp: 1 })),
        exceptions: [],
        eventTimestamp: 1,
        event: { request: { url: 'http://logger.team.workers.dev/', method: overrides.method ?? 'GET', headers: { authorization: 'REDACTED' } }, response: { status: 200 } },
      },
    ],
    headers: [overrides.headers ?? { 'cf-connecting-ip': '10.0.0.7', authorization: 'Bearer x' }],
  };
}

describe('live tails', () => {
  it('answers a tail with its id, WebSocket URL and expiry, lists it, and refuses the 11th of one script', () => {
    const { tails } = setup({ now: () => Date.parse('2026-11-28T06:00:00Z') });
    const tail = create(tails);
    expect(tail).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), url: `ws://127.0.0.1:8787/tails/${tail.id}`, expires_at: '2026-11-28T12:00:00.000Z' });
    expect(tails.list('a1', 'logger')).toEqual([tail]);
    expect(tails.list('a2', 'logger')).toEqual([]);
    for (let index = 1; index < 10; index++) create(tails);
    expect(() => create(tails)).toThrow(expect.objectContaining({ status: 429, code: 10057 }));
    expect(() => create(tails)).toThrow(TailRefusal);
    expect(create(tails, [], 'thrower').id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('traces a script while a client is connected, sends it the traces (named by script and version), and stops when the client goes', async () => {
    const { tails, traced } = setup();
    const tail = create(tails);
    expect(traced).toEqual([]);
    const client = await connect(tails, tail.id);
    expect(traced).toEqual(['on a1/logger']);
    tails.deliver(trace());
    tails.deliver(trace({ script: 'other' }));
    tails.deliver(trace({ account: 'a2' }));
    expect(client.sent).toEqual([expect.objectContaining({ scriptName: 'logger', scriptVersion: { id: 'v-1' }, outcome: 'ok' })]);
    // One client per tail.
    expect(await tails.admit(tails.session(tail.id)!)).toBe(false);
    client.close(1000, 'bye');
    expect(traced).toEqual(['on a1/logger', 'off a1/logger']);
  });

  it('closes a deleted tail\'s client and forgets the tail; a tail of another script is not deleted through this one', async () => {
    const { tails } = setup();
    const tail = create(tails);
    const other = create(tails, [], 'thrower');
    const client = await connect(tails, tail.id);
    expect(tails.remove('a1', 'thrower', tail.id)).toBe(false);
    expect(tails.remove('a2', 'logger', tail.id)).toBe(false);
    expect(tails.remove('a1', 'logger', tail.id)).toBe(true);
    expect(client.closedWith).toEqual([1000, 'the tail was deleted']);
    expect(tails.session(tail.id)).toBeUndefined();
    expect(tails.remove('a1', 'logger', tail.id)).toBe(false);
    tails.removeScript('a1', 'thrower');
    expect(tails.list('a1', 'thrower')).toEqual([]);
    expect(tails.session(other.id)).toBeUndefined();
  });

  it('ends a tail when it expires: its client closed, its URL gone, tracing off', async () => {
    const { tails, traced } = setup({ ttlMs: 50 });
    const tail = create(tails);
    const client = await connect(tails, tail.id);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(client.closedWith).toEqual([1000, 'the tail expired']);
    expect(tails.session(tail.id)).toBeUndefined();
    expect(tails.list('a1', 'logger')).toEqual([]);
    expect(traced.at(-1)).toBe('off a1/logger');
  });
});

describe('filters', () => {
  async function passing(filters: TailFilter[], traces: ScriptTraces[], random?: () => number): Promise<number> {
    const { tails } = setup(random ? { random } : {});
    const client = await connect(tails, create(tails, filters).id);
    for (const each of traces) tails.deliver(each);
    return client.sent.length;
  }

  it('--status: the outcomes named', async () => {
    expect(await passing([{ outcome: ['exception', 'exceededCpu'] }], [trace(), trace({ outcome: 'exception' }), trace({ outcome: 'exceededCpu' })])).toBe(2);
  });

  it('--method: the methods named, in any case', async () => {
    expect(await passing([{ method: ['post'] }], [trace(), trace({ method: 'POST' })])).toBe(1);
  });

  it('--header: the header present, and equal to the value when one is given (before redaction)', async () => {
    expect(await passing([{ header: { key: 'Authorization' } }], [trace(), trace({ headers: {} })])).toBe(1);
    expect(await passing([{ header: { key: 'authorization', query: 'Bearer x' } }], [trace(), trace({ headers: { authorization: 'Bearer y' } })])).toBe(1);
  });

  it('--ip: the addresses named, "self" the address the tail was created from', async () => {
    expect(await passing([{ client_ip: ['self'] }], [trace(), trace({ headers: { 'cf-connecting-ip': '10.0.0.8' } })])).toBe(1);
    expect(await passing([{ client_ip: ['10.0.0.8', '::1'] }], [trace(), trace({ headers: { 'cf-connecting-ip': '10.0.0.8' } })])).toBe(1);
  });

  it('--search: a text in the console messages', async () => {
    expect(await passing([{ query: 'needle' }], [trace(), trace({ logs: [['a', { in: 'haystack needle' }]] })])).toBe(1);
  });

  it('--version-id and --sampling-rate', async () => {
    expect(await passing([{ scriptVersion: 'v-2' }], [trace(), trace({ version: 'v-2' })])).toBe(1);
    const rolls = [0.1, 0.9, 0.2, 0.8];
    expect(await passing([{ sampling_rate: 0.5 }], [trace(), trace(), trace(), trace()], () => rolls.shift()!)).toBe(2);
  });

  it('all of them at once', async () => {
    expect(await passing([{ method: ['GET'] }, { outcome: ['ok'] }], [trace(), trace({ method: 'POST' }), trace({ outcome: 'exception' })])).toBe(1);
  });

  it('refuses what it cannot apply, naming the filter', () => {
    const { tails } = setup();
    expect(() => create(tails, [{ client_ip: ['nope'] }])).toThrow(new TailFilterError('filters[0].client_ip: "nope" is not an IP address (nor "self")'));
    expect(() => create(tails, [{ method: ['GET'] }, { sampling_rate: 2 }])).toThrow(/filters\[1\]\.sampling_rate/);
    expect(() => create(tails, [{ outcome: ['fine'] }])).toThrow(/"fine" is not an outcome/);
    expect(() => create(tails, [{ colour: 'blue' } as unknown as TailFilter])).toThrow(/not a filter this platform applies/);
    expect(tails.list('a1', 'logger')).toEqual([]);
  });
});
