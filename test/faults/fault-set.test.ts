// Which requests a rule set fails: matching, first N, seeded chance (the same draws on every run),
// rule order, counters, and the log line of every injected fault.
import { describe, expect, it } from 'vitest';
import { FaultSet, type FaultLogEntry, type FaultRequest } from '../../src/faults';

const catalogue = { operations: new Set(['listZones', 'getZone', 'updateZoneRuleset']) };

function apiSet(list: unknown[]): { set: FaultSet; logged: FaultLogEntry[] } {
  const logged: FaultLogEntry[] = [];
  const set = new FaultSet('api', catalogue, (entry) => logged.push(entry));
  set.replace(list, 'test');
  return { set, logged };
}

const listZones: FaultRequest = { method: 'GET', path: '/zones', operation: 'listZones' };
const getZone: FaultRequest = { method: 'GET', path: '/zones/abc', operation: 'getZone' };
const putRuleset: FaultRequest = { method: 'PUT', path: '/zones/abc/rulesets/def', operation: 'updateZoneRuleset' };

describe('matching', () => {
  it('by operationId', () => {
    const { set } = apiSet([{ match: { operationId: 'getZone' }, status: 500 }]);
    expect(set.decide(listZones)).toBeUndefined();
    expect(set.decide(getZone)?.effect.status).toBe(500);
  });

  it('by method and path glob (* one segment, ** any), with or without /client/v4 and a trailing slash', () => {
    const { set } = apiSet([
      { name: 'one', match: { method: 'PUT', path: '/zones/*/rulesets/*' }, status: 500 },
      { name: 'any', match: { path: '/client/v4/zones/**' }, status: 503 },
    ]);
    expect(set.decide(putRuleset)?.rule).toBe('one');
    expect(set.decide({ ...putRuleset, path: '/zones/abc/rulesets/def/' })?.rule).toBe('one');
    expect(set.decide({ ...putRuleset, method: 'GET' })?.rule).toBe('any');
    expect(set.decide(getZone)?.rule).toBe('any');
    expect(set.decide(listZones)).toBeUndefined();
  });

  it('by S3 operation and bucket', () => {
    const set = new FaultSet('s3', { operations: new Set(['PutObject', 'GetObject']) });
    set.replace([{ match: { operation: 'PutObject', bucket: 'photos' }, status: 503 }], 'test');
    expect(set.decide({ method: 'PUT', path: '/photos/a', operation: 'PutObject', bucket: 'photos' })?.effect.code).toBe('SlowDown');
    expect(set.decide({ method: 'PUT', path: '/docs/a', operation: 'PutObject', bucket: 'docs' })).toBeUndefined();
    expect(set.decide({ method: 'GET', path: '/photos/a', operation: 'GetObject', bucket: 'photos' })).toBeUndefined();
  });

  it('a rule without match takes every request', () => {
    const { set } = apiSet([{ delayMs: 5 }]);
    expect(set.decide(listZones)?.effect.delayMs).toBe(5);
    expect(set.decide(putRuleset)?.effect.delayMs).toBe(5);
  });
});

describe('when', () => {
  it('first N fails that many matching requests, then lets them through, counting all', () => {
    const { set } = apiSet([{ name: 'two', match: { operationId: 'listZones' }, status: 429, first: 2 }]);
    const outcomes = [1, 2, 3, 4].map(() => set.decide(listZones)?.effect.status);
    expect(outcomes).toEqual([429, 429, undefined, undefined]);
    set.decide(getZone);
    expect(set.list()).toEqual([expect.objectContaining({ name: 'two', matched: 4, injected: 2 })]);
  });

  it('a 429 sends Retry-After 1 and the platform body unless told otherwise', () => {
    const { set } = apiSet([{ status: 429, first: 1 }, { status: 429, retryAfter: 30 }]);
    expect(set.decide(listZones)?.effect).toEqual({
      delayMs: 0,
      status: 429,
      retryAfter: 1,
      errors: [{ code: 971, message: 'Please wait and consider throttling your request speed' }],
    });
    expect(set.decide(listZones)?.effect.retryAfter).toBe(30);
  });

  it('probability draws the same sequence from the same seed, and another from another seed', () => {
    const draws = (seed: number) => {
      const { set } = apiSet([{ status: 503, probability: 0.3, seed }]);
      return Array.from({ length: 200 }, () => (set.decide(listZones) ? 1 : 0)).join('');
    };
    const first = draws(42);
    expect(draws(42)).toBe(first);
    // Pinned: an upgrade of the generator that changes the sequence breaks replays, and this.
    expect(first.slice(0, 32)).toBe('00101010001100010000001000010000');
    expect(draws(43)).not.toBe(first);
    const failed = [...first].filter((bit) => bit === '1').length;
    // 200 draws at 0.3: 60 expected; the bounds are over 4 standard deviations (6.5) wide.
    expect(failed).toBeGreaterThan(33);
    expect(failed).toBeLessThan(87);
  });

  it('probability 0 never fires and 1 always does', () => {
    const { set } = apiSet([
      { name: 'never', status: 500, probability: 0 },
      { name: 'always', status: 503, probability: 1 },
    ]);
    for (let i = 0; i < 20; i += 1) expect(set.decide(listZones)?.rule).toBe('always');
    expect(set.list().map(({ matched, injected }) => [matched, injected])).toEqual([
      [20, 0],
      [20, 20],
    ]);
  });

  it('rules are tried in order; one that does not fire passes the request on', () => {
    const { set } = apiSet([
      { name: 'first-one', match: { operationId: 'listZones' }, status: 429, first: 1 },
      { name: 'then-slow', delayMs: 10 },
    ]);
    expect(set.decide(listZones)?.rule).toBe('first-one');
    expect(set.decide(listZones)?.rule).toBe('then-slow');
    expect(set.list().map(({ matched, injected }) => [matched, injected])).toEqual([
      [2, 1],
      [1, 1],
    ]);
  });

  it('replacing the rules starts the counters again; clearing removes them', () => {
    const { set } = apiSet([{ status: 500, first: 1 }]);
    set.decide(listZones);
    expect(set.decide(listZones)).toBeUndefined();
    set.replace([{ status: 500, first: 1 }], 'test');
    expect(set.decide(listZones)?.effect.status).toBe(500);
    set.clear();
    expect(set.size).toBe(0);
    expect(set.decide(listZones)).toBeUndefined();
  });
});

describe('log', () => {
  it('one entry per injected fault, naming the rule, the request and the effect', () => {
    const { set, logged } = apiSet([
      { name: 'slow-then-fail', match: { operationId: 'updateZoneRuleset' }, delayMs: 200, status: 503, retryAfter: 2 },
      { name: 'drop', match: { operationId: 'getZone' }, drop: 'before-response', first: 1 },
    ]);
    set.decide(putRuleset);
    set.decide(getZone);
    set.decide(getZone);
    set.decide(listZones);
    expect(logged).toEqual([
      {
        fault: 'slow-then-fail',
        face: 'api',
        method: 'PUT',
        path: '/zones/abc/rulesets/def',
        operation: 'updateZoneRuleset',
        effect: 'delay 200 ms, then status 503 10001 (Retry-After 2)',
      },
      { fault: 'drop', face: 'api', method: 'GET', path: '/zones/abc', operation: 'getZone', effect: 'drop before-response' },
    ]);
  });
});
