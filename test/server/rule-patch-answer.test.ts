// A PATCH of a rule answers the ruleset as it was written, without reading it back: the answer
// must equal, field for field, what a later GET and the version's snapshot read from the store,
// whether the rule changed, stayed the same, or moved; across several rules of one ruleset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, startServer, token, type TestServer } from './harness';

let server: TestServer;
const zone_id = ids.manyRulesZone;
const phase = 'http_request_firewall_custom';

beforeAll(async () => {
  server = await startServer();
  const rules = ['/a', '/b', '/c'].map((path) => ({ action: 'block', expression: `http.request.uri.path eq "${path}"`, description: path }));
  const response = await server.fetch(`/zones/${zone_id}/rulesets/phases/${phase}/entrypoint`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ rules }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
});
afterAll(() => server?.stop());

async function json(response: Response) {
  const body = (await response.json()) as { result: { id: string; version: string; rules: { id: string; version: string; enabled: boolean; last_updated: string }[] } };
  expect(response.status).toBe(200);
  return body.result;
}

const auth = { headers: { authorization: `Bearer ${token}` } };

async function entryPoint() {
  return json(await server.fetch(`/zones/${zone_id}/rulesets/phases/${phase}/entrypoint`, auth));
}

async function patchRule(rulesetId: string, ruleId: string, body: unknown) {
  return json(
    await server.fetch(`/zones/${zone_id}/rulesets/${rulesetId}/rules/${ruleId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

describe('the answer of a rule PATCH', () => {
  it('equals the ruleset read back and its version snapshot, for changed, unchanged and moved rules', async () => {
    const start = await entryPoint();
    expect(start.rules.map((rule) => rule.id)).toHaveLength(3);
    const [first, second, third] = start.rules;
    const cases: [string, unknown][] = [
      [second!.id, { enabled: !second!.enabled }],
      [first!.id, { description: 'changed by the answer test' }],
      // Same fields again: the ruleset's version moves, the rule's does not.
      [first!.id, { description: 'changed by the answer test' }],
      [third!.id, { position: { index: 1 } }],
      [second!.id, { enabled: second!.enabled, description: 'back', position: { before: first!.id } }],
    ];
    let previous = start;
    for (const [ruleId, body] of cases) {
      const answer = await patchRule(start.id, ruleId, body);
      expect(Number(answer.version)).toBe(Number(previous.version) + 1);
      expect(await entryPoint()).toEqual(answer);
      const snapshot = await json(await server.fetch(`/zones/${zone_id}/rulesets/${start.id}/versions/${answer.version}`, auth));
      expect(snapshot).toEqual(answer);
      previous = answer;
    }
    const unchanged = previous.rules.find((rule) => rule.id === first!.id)!;
    const original = start.rules.find((rule) => rule.id === first!.id)!;
    // One real change across two PATCHes of the same fields.
    expect(Number(unchanged.version)).toBe(Number(original.version) + 1);
    // Positions count from 1: the third rule went first, then the second before the first.
    expect(previous.rules.map((rule) => rule.id)).toEqual([third!.id, second!.id, first!.id]);
  });
});
