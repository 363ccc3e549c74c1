// The health of the places a process keeps state in: a loss told once and its end once, waiters
// woken when the place is found, a full place until space is freed.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { healthOf, healthProblems, onHealthChange, PlaceHealth, RESERVE_BYTES, type HealthEvent } from '../src/storage-health';

const events: HealthEvent[] = [];
onHealthChange((event) => events.push(event));
afterEach(() => {
  events.length = 0;
});

describe('a place lost and found', () => {
  it('tells the loss once however often it is met, wakes the waiters when found, and tells that once', async () => {
    const health = healthOf('postgres://db/lost-once');
    health.lost('connect ECONNREFUSED');
    health.lost('connect ECONNREFUSED');
    expect(health.isLost).toBe(true);
    expect(healthProblems()).toEqual([expect.objectContaining({ place: 'postgres://db/lost-once', kind: 'unavailable', reason: 'connect ECONNREFUSED' })]);
    const waiting = health.whenFound(5_000);
    expect(await health.whenFound(10)).toBe(false);
    health.found();
    health.found();
    expect(await waiting).toBe(true);
    expect(events.map(({ state }) => state)).toEqual(['lost', 'back']);
    expect(healthProblems()).toEqual([]);
  });

  it('finds a lost place by its probe, tried until it answers', async () => {
    const health = healthOf('postgres://db/probed');
    let tries = 0;
    const removeProbe = health.addProbe(async () => {
      tries += 1;
      if (tries < 3) throw new Error('still down');
    });
    health.lost('the database system is starting up');
    expect(await health.whenFound(5_000)).toBe(true);
    expect(tries).toBe(3);
    expect(events.map(({ state }) => state)).toEqual(['lost', 'back']);
    removeProbe();
  });
});

describe('a full file system', () => {
  it('gives its reserve back when a write finds it full, stays full until twice the reserve is free, then makes the reserve again', () => {
    const directory = mkdtempSync(join(tmpdir(), 'health-'));
    const reserve = join(directory, 'reserved-space');
    let free = 100 * RESERVE_BYTES;
    const health = new PlaceHealth('file system under test', directory, () => free);
    try {
      health.keepReserve(reserve);
      expect(existsSync(reserve)).toBe(true);
      free = 1000;
      health.full('no space left on the device (ENOSPC)');
      health.full('no space left on the device (ENOSPC)');
      expect(existsSync(reserve)).toBe(false);
      expect(health.isFull).toBe(true);
      expect(health.problems()).toEqual([expect.objectContaining({ place: directory, kind: 'full', reason: 'no space left on the device (ENOSPC)' })]);
      free = RESERVE_BYTES + 1000;
      expect(health.isFull).toBe(true);
      free = 2 * RESERVE_BYTES;
      expect(health.isFull).toBe(false);
      expect(health.problems()).toEqual([]);
      expect(existsSync(reserve)).toBe(true);
      expect(events.map(({ state }) => state)).toEqual(['full', 'room']);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("counts a database server's disk full for a minute after its last refusal", () => {
    const health = healthOf('postgres://db/full');
    health.full('the database server has no space left on its disk');
    expect(health.isFull).toBe(true);
    expect(healthProblems()).toEqual([expect.objectContaining({ place: 'postgres://db/full', kind: 'full' })]);
  });
});

