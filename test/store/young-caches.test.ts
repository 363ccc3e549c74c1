// The caches on the hot paths are shaped so that what they drop dies young (see
// src/in-place-caches.ts): their behaviour as caches is tested here; what
// it does to V8's old generation under load, in test/platform/old-generation.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LruMap, RecentMemo } from '../../src/in-place-caches';
import { frozenJson } from '../../src/store';
import { VersionCache } from '../../src/store/rulesets/version-cache';
import type { Ruleset } from '../../src/store';
import { ZONE_IDS } from './contract/fixtures';
import type { StoreHarness } from './helpers/harness';
import { sqliteHarness } from './helpers/sqlite-harness';

describe('LruMap', () => {
  it('keeps at most its capacity, dropping the least recently used quarter when full', () => {
    const map = new LruMap<string, number>(8);
    for (let i = 0; i < 8; i++) map.set(`k${i}`, i);
    map.get('k0'); // used: k1 and k2 are now the oldest
    map.set('k8', 8); // drops two (a quarter of 8): k1, k2
    expect(map.size).toBe(7);
    expect(map.peek('k1')).toBeUndefined();
    expect(map.peek('k2')).toBeUndefined();
    expect([0, 3, 4, 5, 6, 7, 8].map((i) => map.peek(`k${i}`))).toEqual([0, 3, 4, 5, 6, 7, 8]);
  });

  it('drops exactly the least recently used one when the capacity is below four', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.get('a');
    map.set('c', 3);
    expect([map.peek('a'), map.peek('b'), map.peek('c')]).toEqual([1, undefined, 3]);
  });

  it('changes a value in place, which counts as a use; peek does not', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 10); // a used last
    map.peek('b');
    map.set('c', 3); // drops b, the least recently used
    expect([map.get('a'), map.get('b'), map.get('c'), map.size]).toEqual([10, undefined, 3, 2]);
  });

  it('refuses a capacity that is not a whole number of at least 1', () => {
    expect(() => new LruMap(0)).toThrow(RangeError);
    expect(() => new LruMap(1.5)).toThrow(/whole number/);
  });
});

describe('RecentMemo', () => {
  it('gives back the value of an object by identity, not by content', () => {
    const memo = new RecentMemo<string>(4);
    const key = { a: 1 };
    memo.set(key, 'one');
    expect(memo.get(key)).toBe('one');
    expect(memo.get({ a: 1 })).toBeUndefined();
  });

  it('forgets the oldest beyond its capacity, but keeps an object read since the last turn', () => {
    const memo = new RecentMemo<number>(3);
    const [hot, b, c, d, e] = [{}, {}, {}, {}, {}];
    memo.set(hot, 0);
    memo.set(b, 1);
    memo.set(c, 2);
    expect(memo.get(hot)).toBe(0); // read: the hand passes it once
    memo.set(d, 3); // takes b's place
    expect([memo.get(hot), memo.get(b), memo.get(c), memo.get(d)]).toEqual([0, undefined, 2, 3]);
    // Every slot read since: the hand clears c's mark, hot's, d's, and comes back to c.
    memo.set(e, 4);
    expect([memo.get(hot), memo.get(c), memo.get(d), memo.get(e)]).toEqual([0, undefined, 3, 4]);
  });

  it('replaces the value of an object it holds', () => {
    const memo = new RecentMemo<string>(2);
    const key = {};
    memo.set(key, 'old');
    memo.set(key, 'new');
    memo.set({}, 'other');
    expect(memo.get(key)).toBe('new');
  });
});

describe('frozenJson', () => {
  it('encodes a frozen value once while it is recent, and any other value each time', () => {
    const frozen = Object.freeze({ id: 'r1', rules: Object.freeze([]) });
    expect(frozenJson(frozen)).toBe('{"id":"r1","rules":[]}');
    expect(frozenJson(frozen)).toBe(frozenJson(frozen));
    const open = { n: 1 };
    expect(frozenJson(open)).toBe('{"n":1}');
    open.n = 2;
    expect(frozenJson(open)).toBe('{"n":2}');
  });
});

describe('VersionCache', () => {
  const version = (id: string, number: number): Ruleset => ({ id, version: String(number), rules: [] }) as unknown as Ruleset;

  it('keeps one version per ruleset, the newest seen, and answers only for that version', () => {
    const cache = new VersionCache();
    const first = cache.set(version('r1', 1));
    expect(Object.isFrozen(first)).toBe(true);
    expect(cache.get('r1', 1)).toBe(first);
    const second = cache.set(version('r1', 2));
    expect(cache.get('r1', 2)).toBe(second);
    expect(cache.get('r1', '2')).toBe(second);
    // Superseded: no read asks for it by the current row, and it is not kept.
    expect(cache.get('r1', 1)).toBeUndefined();
  });

  it('does not let an older version read late replace a newer one', () => {
    const cache = new VersionCache();
    const newer = cache.set(version('r1', 5));
    const older = cache.set(version('r1', 4));
    expect(Object.isFrozen(older)).toBe(true);
    expect(cache.get('r1', 5)).toBe(newer);
    expect(cache.get('r1', 4)).toBeUndefined();
  });
});

describe('the store under a run of writes to one ruleset', () => {
  let harness: StoreHarness;
  beforeEach(() => void (harness = sqliteHarness()));
  afterEach(() => harness.cleanup());

  it('answers every read with the version last written, from the cache', async () => {
    const store = await harness.fresh();
    const scope = { zone_id: ZONE_IDS.pro };
    const entryPoint = (await store.rulesets.getEntryPoint(scope, 'http_request_firewall_managed'))!;
    const rule = entryPoint.rules[0]!;
    let last = entryPoint;
    for (let i = 0; i < 5; i++) {
      last = await store.rulesets.updateRule(scope, entryPoint.id, rule.id, { enabled: i % 2 === 0 });
      const read = await store.rulesets.getEntryPoint(scope, 'http_request_firewall_managed');
      expect(read).toBe(last); // the committed version, kept by the cache
      expect(read!.version).toBe(String(Number(entryPoint.version) + i + 1));
      expect(read!.rules[0]!.enabled).toBe(i % 2 === 0);
    }
  });
});
