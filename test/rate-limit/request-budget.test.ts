// The request budget alone: per-user fixed windows, the block after the budget is spent, and the
// headers the platform sends. Short windows in seconds, as the tests of the server use them.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PLATFORM_POLICY, rateLimitHeaders, RequestBudget } from '../../src/rate-limit';

describe('request budget', () => {
  it('is the platform documented 1,200 requests per five minutes by default', () => {
    expect(PLATFORM_POLICY).toEqual({ requests: 1200, windowSeconds: 300 });
  });

  it('counts down per user, refuses past the budget, and opens a new window after the block', async () => {
    const budget = new RequestBudget({ requests: 3, windowSeconds: 1 });
    const verdicts = [];
    for (let i = 0; i < 4; i += 1) verdicts.push(await budget.take('alice'));
    expect(verdicts.map((v) => [v.allowed, v.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(verdicts[0]!.resetSeconds).toBe(1);
    expect(verdicts[3]!.resetSeconds).toBe(1);
    // Another user has a budget of their own.
    expect((await budget.take('bob')).allowed).toBe(true);
    await sleep(1100);
    const after = await budget.take('alice');
    expect([after.allowed, after.remaining]).toEqual([true, 2]);
  });

  it('blocks for a whole window from the refusal, and refusals do not lengthen it', async () => {
    const budget = new RequestBudget({ requests: 1, windowSeconds: 2 });
    await budget.take('alice');
    await sleep(1100);
    // Second request, 1.1 s into a 2 s window: refused, blocked for 2 s from now.
    const refused = await budget.take('alice');
    expect([refused.allowed, refused.resetSeconds]).toEqual([false, 2]);
    await sleep(1100);
    // The window that opened first would be over by now; the block is not.
    const stillRefused = await budget.take('alice');
    expect([stillRefused.allowed, stillRefused.resetSeconds]).toEqual([false, 1]);
    await sleep(1000);
    expect((await budget.take('alice')).allowed).toBe(true);
  });

  it('sends Ratelimit and Ratelimit-Policy always, Retry-After on a refusal only', () => {
    const policy = { requests: 1200, windowSeconds: 300 };
    expect(rateLimitHeaders(policy, { allowed: true, remaining: 1150, resetSeconds: 240 })).toEqual({
      Ratelimit: '"default";r=1150;t=240',
      'Ratelimit-Policy': '"default";q=1200;w=300',
    });
    expect(rateLimitHeaders(policy, { allowed: false, remaining: 0, resetSeconds: 300 })).toEqual({
      Ratelimit: '"default";r=0;t=300',
      'Ratelimit-Policy': '"default";q=1200;w=300',
      'Retry-After': '300',
    });
  });
});
