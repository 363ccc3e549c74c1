// The health of the places a process keeps state in: a loss told once and its end once, waiters
// woken when the place is found, a full place until space is freed.
import { afterEach, describe, expect, it } from 'vitest';
import { healthOf, healthProblems, onHealthChange, type HealthEvent } from '../src/storage-health';

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

describe('a full place', () => {
  it('stays full until more is free than when the write was refused, then says so once', () => {
    const health = healthOf('/data/full');
    let free = 1000;
    health.full('no space left on the device (ENOSPC)', () => free);
    health.full('no space left on the device (ENOSPC)', () => free);
    expect(healthProblems()).toEqual([expect.objectContaining({ place: '/data/full', kind: 'full' })]);
    free = 500;
    expect(healthProblems()).toHaveLength(1);
    free = 600_000;
    expect(healthProblems()).toEqual([]);
    expect(events.map(({ state }) => state)).toEqual(['full', 'room']);
  });
});

