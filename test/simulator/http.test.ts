// The extension operation through the server (response validation on): the same simulation as
// the library, the errors of the other operations, and nothing changed in the store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulationResult } from '../../src/simulator';
import { json, startServer, type TestServer } from '../server/harness';
import { PRO, fixture } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ tokens: [{ token: 'scoped-to-the-enterprise-zone', scope: { accounts: new Set(), zones: new Set(['db737a563ced53f224ff5eae44905c5e']) } }] });
});
afterAll(async () => {
  await server?.stop();
});

interface Envelope {
  success: boolean;
  result: SimulationResult | null;
  errors: { code: number; message: string }[];
}

async function post(zoneId: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; envelope: Envelope }> {
  const response = await server.fetch(`/zones/${zoneId}/simulate`, json('POST', body, headers));
  return { status: response.status, envelope: (await response.json()) as Envelope };
}

describe('POST /zones/{zone_id}/simulate', () => {
  it('answers the simulation of an attack on the seeded Pro zone', async () => {
    const { status, envelope } = await post(PRO, fixture('xss-script-tag'));
    expect(status).toBe(200);
    expect(envelope.success).toBe(true);
    expect(envelope.result?.owasp?.score).toMatchObject({ total: 40, threshold: 25, exceeded: true, paranoia_level: 2, action: 'managed_challenge' });
    expect(envelope.result?.outcome).toMatchObject({ action: 'managed_challenge', status: 403 });
    expect(envelope.result?.log.entries[0]?.entry).toMatchObject({ EdgeResponseStatus: 403, RequestHeaders: { 'x-request-id': '7d1e' } });
  });

  it('works through the typed client', async () => {
    const { data } = await server.api.POST('/zones/{zone_id}/simulate', {
      params: { path: { zone_id: PRO } },
      body: { method: 'GET', url: 'https://example.org/products?page=2', headers: { Accept: 'text/html', 'User-Agent': 'Mozilla/5.0' }, client_ip: '198.51.100.23' },
    });
    expect(data?.result.outcome).toEqual({ action: null, rule: null, status: null });
    expect(data?.result.owasp?.score.total).toBe(0);
  });

  it('changes nothing: rulesets and jobs keep their versions', async () => {
    const before = await server.store.rulesets.list({ zone_id: PRO });
    await post(PRO, fixture('path-traversal'));
    expect(await server.store.rulesets.list({ zone_id: PRO })).toEqual(before);
  });

  it('refuses what the document refuses (400, code 10021)', async () => {
    const { status, envelope } = await post(PRO, { url: 'https://example.org/' });
    expect(status).toBe(400);
    expect(envelope.errors).toEqual([{ code: 10021, message: "body must have required property 'method'" }]);
  });

  it('takes override values as deep as the language nests them, and names the one place of a deeper value', async () => {
    const nested = await post(PRO, { ...fixture('benign-browser'), overrides: { 'cf.bot_management.detection_ids': [1, 2] } });
    expect(nested.status).toBe(200);
    expect(nested.envelope.result?.context['cf.bot_management.detection_ids']).toEqual([1, 2]);
    const { status, envelope } = await post(PRO, { method: 'GET', url: 'https://example.org/', overrides: { 'cf.bot_management.detection_ids': [[[1]]] } });
    expect(status).toBe(400);
    expect(envelope.errors).toEqual([{ code: 10021, message: 'body.overrides.cf.bot_management.detection_ids[0]: must be an integer (Int)' }]);
  });

  it('says once per place what a value matching none of its forms must be', async () => {
    const answers = await Promise.all(
      [
        { client_ip: 'abc' },
        { headers: { Accept: 5 } },
        { headers: { Accept: [1] } },
        { overrides: { 'cf.threat_score': null } },
      ].map(async (extra) => (await post(PRO, { method: 'GET', url: 'https://example.org/', ...extra })).envelope.errors),
    );
    expect(answers).toEqual([
      [{ code: 10021, message: 'body/client_ip must match format "ipv4" or "ipv6"' }],
      [{ code: 10021, message: 'body/headers/Accept must be string or array' }],
      [{ code: 10021, message: 'body/headers/Accept/0 must be string' }],
      [{ code: 10021, message: 'body/overrides/cf.threat_score must be string, integer, boolean, array or object' }],
    ]);
  });

  it('refuses what only the simulator knows, one error per problem (400, code 10021)', async () => {
    const { status, envelope } = await post(PRO, { method: 'GET', url: 'ftp://example.org/', overrides: { 'cf.bot_management.score': 'high' } });
    expect(status).toBe(400);
    expect(envelope.errors).toEqual([
      { code: 10021, message: 'body.url: scheme ftp is not simulated (use http or https)' },
      { code: 10021, message: 'body.overrides.cf.bot_management.score: must be an integer (Int)' },
    ]);
  });

  it('answers 404 for an unknown zone and 403 for a zone the token does not reach', async () => {
    const unknown = await post('0123456789abcdef0123456789abcdef', fixture('benign-browser'));
    expect(unknown.status).toBe(404);
    expect(unknown.envelope.errors.map((e) => e.code)).toEqual([7003, 7000]);
    const outOfScope = await post(PRO, fixture('benign-browser'), { Authorization: 'Bearer scoped-to-the-enterprise-zone' });
    expect(outOfScope.status).toBe(403);
    expect(outOfScope.envelope.errors).toEqual([{ code: 9109, message: 'Unauthorized to access requested resource' }]);
  });
});
