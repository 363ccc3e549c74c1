import { describe, expect, it } from 'vitest';
import { fixedClock, formatTimestamp, newId, isId, parseTimestamp, steppingClock, systemClock } from '../../src/store';
import { resolvePage, toPage } from '../../src/store/query/paging';

const ORDERS = ['name', 'id'] as const;

describe('paging', () => {
  it('fills defaults: page 1, 20 per page, the first order, ascending', () => {
    expect(resolvePage(undefined, ORDERS)).toEqual({ page: 1, per_page: 20, offset: 0, order: 'name', direction: 'asc' });
    expect(resolvePage({}, ORDERS, 'desc').direction).toBe('desc');
  });

  it('turns page and per_page into an offset and accepts either case of direction', () => {
    expect(resolvePage({ page: 3, per_page: 7, order: 'id', direction: 'DESC' }, ORDERS)).toEqual({
      page: 3,
      per_page: 7,
      offset: 14,
      order: 'id',
      direction: 'desc',
    });
  });

  it('computes result_info for full, partial, empty and past-the-end pages', () => {
    const window = (page: number, per_page: number) => resolvePage({ page, per_page }, ORDERS);
    expect(toPage(['a', 'b'], 5, window(1, 2)).result_info).toEqual({ page: 1, per_page: 2, count: 2, total_count: 5, total_pages: 3 });
    expect(toPage(['e'], 5, window(3, 2)).result_info).toEqual({ page: 3, per_page: 2, count: 1, total_count: 5, total_pages: 3 });
    expect(toPage([], 5, window(4, 2)).result_info).toEqual({ page: 4, per_page: 2, count: 0, total_count: 5, total_pages: 3 });
    expect(toPage([], 0, window(1, 20)).result_info).toEqual({ page: 1, per_page: 20, count: 0, total_count: 0, total_pages: 0 });
    expect(toPage(['x'], 20, window(1, 20)).result_info.total_pages).toBe(1);
    expect(toPage(['x'], 21, window(1, 20)).result_info.total_pages).toBe(2);
  });

  it('refuses NaN and negative numbers', () => {
    expect(() => resolvePage({ page: Number.NaN }, ORDERS)).toThrow('page must be a whole number of at least 1, got NaN');
    expect(() => resolvePage({ per_page: -5 }, ORDERS)).toThrow('per_page must be a whole number from 1 to 1000, got -5');
  });
});

describe('clocks and timestamps', () => {
  it('formats epoch microseconds with six fractional digits and Z', () => {
    expect(formatTimestamp(1_795_255_200_123_456)).toBe('2026-11-21T10:00:00.123456Z');
    expect(formatTimestamp(0)).toBe('1970-01-01T00:00:00.000000Z');
    expect(() => formatTimestamp(-1)).toThrow(RangeError);
    expect(() => formatTimestamp(1.5)).toThrow(RangeError);
  });

  it('parses what it formats and shorter fractions, and refuses other forms', () => {
    expect(parseTimestamp('2026-11-21T10:00:00.123456Z')).toBe(1_795_255_200_123_456);
    expect(parseTimestamp('2026-11-21T10:00:00.5Z')).toBe(1_795_255_200_500_000);
    expect(parseTimestamp('2026-11-21T10:00:00Z')).toBe(1_795_255_200_000_000);
    for (const bad of ['2026-11-21T10:00:00+01:00', '2026-11-21 10:00:00Z', '2026-13-40T10:00:00Z', 'yesterday', '2026-11-21T10:00:00.1234567Z']) {
      expect(() => parseTimestamp(bad)).toThrow(`not an ISO 8601 UTC timestamp: ${JSON.stringify(bad)}`);
    }
  });

  it('offers fixed, stepping and system clocks', () => {
    const fixed = fixedClock('2026-11-21T10:00:00.123456Z');
    expect([fixed.nowMicros(), fixed.nowMicros()]).toEqual([1_795_255_200_123_456, 1_795_255_200_123_456]);
    const stepping = steppingClock('2026-11-21T10:00:00.999999Z', 2);
    expect([stepping.nowMicros(), stepping.nowMicros()].map(formatTimestamp)).toEqual([
      '2026-11-21T10:00:00.999999Z',
      '2026-11-21T10:00:01.000001Z',
    ]);
    const before = Date.now() * 1000;
    const now = systemClock.nowMicros();
    expect(Number.isSafeInteger(now)).toBe(true);
    expect(Math.abs(now - before)).toBeLessThan(60_000_000);
  });
});

describe('ids', () => {
  it('are 32 lower-case hex characters and do not repeat', () => {
    const ids = Array.from({ length: 1000 }, newId);
    expect(ids.every(isId)).toBe(true);
    expect(new Set(ids).size).toBe(1000);
    expect(isId('DB737A563CED53F224FF5EAE44905C5E')).toBe(false);
    expect(isId('db737a563ced53f224ff5eae44905c5')).toBe(false);
  });
});
