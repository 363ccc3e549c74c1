// The platform's rate limit, opt-in: per user, answered as the platform answers once exceeded
// (429, code 971, Retry-After, Ratelimit and Ratelimit-Policy), reset after the window. Windows of
// two seconds stand in for the platform's five minutes.
import Cloudflare from 'cloudflare';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKey, bearer, ids, startServer, userEmail, type TestServer } from './harness';
import { officialClient } from './official-client';

const zonePath = `/zones/${ids.proZone}`;
const WINDOW = 2;
/** Past the end of a window (or of a block), with a margin for timers. */
const windowPassed = () => sleep(WINDOW * 1000 + 150);

describe('without RATE_LIMIT', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('nothing changes: no limit, no rate-limit headers', async () => {
    for (let i = 0; i < 5; i += 1) {
      const response = await server.fetch(zonePath, { headers: bearer() });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit')).toBeNull();
      expect(response.headers.get('ratelimit-policy')).toBeNull();
    }
  });
});

describe('with the rate limit on', () => {
  let server: TestServer;
  const otherUser = 'token-of-another-user';

  beforeAll(async () => {
    server = await startServer({
      rateLimit: { requests: 3, windowSeconds: WINDOW },
      tokens: [{ token: otherUser, email: 'jane.doe@example.com', scope: { accounts: null, zones: null } }],
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers as the platform once exceeded, and serves again after the window', async () => {
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(await server.fetch(zonePath, { headers: bearer() }));
    expect(answers.map((response) => response.status)).toEqual([200, 200, 200, 429]);
    // What is left, and the seconds (rounded up) until the window resets: at most the window.
    expect(answers.map((response) => response.headers.get('ratelimit'))).toEqual([
      '"default";r=2;t=2',
      expect.stringMatching(/^"default";r=1;t=[12]$/),
      expect.stringMatching(/^"default";r=0;t=[12]$/),
      // Refused: blocked for a whole window from now.
      '"default";r=0;t=2',
    ]);
    for (const response of answers) expect(response.headers.get('ratelimit-policy')).toBe('"default";q=3;w=2');
    const refused = answers[3]!;
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(answers[0]!.headers.get('retry-after')).toBeNull();
    expect(await refused.json()).toEqual({
      result: null,
      success: false,
      errors: [{ code: 971, message: 'Please wait and consider throttling your request speed' }],
      messages: [],
    });
    await windowPassed();
    const again = await server.fetch(zonePath, { headers: bearer() });
    expect(again.status).toBe(200);
    expect(again.headers.get('ratelimit')).toBe('"default";r=2;t=2');
    await windowPassed();
  });

  it('counts per user: a token and a key of one user share a budget, another user has their own', async () => {
    const key = { 'X-Auth-Email': userEmail, 'X-Auth-Key': apiKey };
    const statuses = [];
    for (const headers of [bearer(), key, bearer(), key, bearer(otherUser)]) statuses.push((await server.fetch(zonePath, { headers })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 200]);
    await windowPassed();
  });

  it('counts requests the document refuses; requests without credentials count for no one', async () => {
    for (let i = 0; i < 3; i += 1) expect((await server.fetch('/zones?per_page=0', { headers: bearer() })).status).toBe(400);
    expect((await server.fetch(zonePath, { headers: bearer() })).status).toBe(429);
    const anonymous = await server.fetch(zonePath);
    expect(anonymous.status).toBe(400);
    expect(anonymous.headers.get('ratelimit')).toBeNull();
    await windowPassed();
  });

  it('the official client waits out Retry-After with its default retries, and fails with RateLimitError without them', async () => {
    const { cf } = officialClient(server, { maxRetries: 2 });
    const zones = [];
    for (let i = 0; i < 5; i += 1) zones.push((await cf.zones.get({ zone_id: ids.proZone })).id);
    expect(zones).toEqual(Array(5).fill(ids.proZone));
    await windowPassed();
    const { cf: impatient } = officialClient(server, { maxRetries: 0 });
    for (let i = 0; i < 3; i += 1) await impatient.zones.get({ zone_id: ids.proZone });
    const error = await impatient.zones.get({ zone_id: ids.proZone }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Cloudflare.RateLimitError);
    expect((error as InstanceType<typeof Cloudflare.RateLimitError>).errors).toEqual([
      { code: 971, message: 'Please wait and consider throttling your request speed' },
    ]);
  });
});
