// Without response validation (as `npm start` runs), success envelopes are written straight to
// Node's response, encoded once per committed version: the same status, headers and JSON as the
// validated server's, a Content-Length in bytes, and no body for HEAD.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, ids, json, startServer, type TestServer } from './harness';

let plain: TestServer;
let validated: TestServer;

beforeAll(async () => {
  [plain, validated] = await Promise.all([startServer({ validateResponses: false }), startServer()]);
});
afterAll(() => Promise.all([plain.stop(), validated.stop()]));

async function answer(server: TestServer, path: string, method = 'GET') {
  const response = await server.fetch(path, { method, headers: bearer() });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, type: response.headers.get('content-type'), length: response.headers.get('content-length'), bytes };
}

describe('answers written without response validation', () => {
  const paths = {
    'a small ruleset (sent as text)': `/zones/${ids.proZone}/rulesets/phases/http_request_firewall_managed/entrypoint`,
    'a 25 KB ruleset (sent as bytes)': `/accounts/${ids.account}/rulesets/${ids.owasp}`,
    'a page with result_info': `/zones?per_page=5`,
  };

  for (const [what, path] of Object.entries(paths)) {
    it(`answers ${what} as the validated server does, and HEAD with the headers only`, async () => {
      const [mine, theirs, head] = await Promise.all([answer(plain, path), answer(validated, path), answer(plain, path, 'HEAD')]);
      expect(mine.status).toBe(200);
      expect(mine.type).toBe('application/json; charset=utf-8');
      expect(Number(mine.length)).toBe(mine.bytes.length);
      expect(JSON.parse(mine.bytes.toString('utf8'))).toEqual(JSON.parse(theirs.bytes.toString('utf8')));
      expect(head).toEqual({ status: 200, type: mine.type, length: mine.length, bytes: Buffer.alloc(0) });
    });
  }

  it('counts Content-Length in bytes for text beyond ASCII, the same on every read of a version', async () => {
    const description = 'Règles — café ☕ 🛡️';
    const created = await plain.fetch(`/zones/${ids.proZone}/rulesets`, json('POST', { name: 'unicode', kind: 'zone', phase: 'http_request_firewall_custom', description, rules: [] }));
    expect(created.status).toBe(200);
    const { id } = ((await created.json()) as { result: { id: string } }).result;
    for (let i = 0; i < 2; i += 1) {
      const read = await answer(plain, `/zones/${ids.proZone}/rulesets/${id}`);
      expect(Number(read.length)).toBe(read.bytes.length);
      expect(read.bytes.length).toBeGreaterThan(read.bytes.toString('utf8').length);
      expect((JSON.parse(read.bytes.toString('utf8')) as { result: { description: string } }).result.description).toBe(description);
    }
  });
});
