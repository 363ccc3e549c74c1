// Scoped credentials on the writes of the resource families: a token scoped to another zone or
// account is refused (403, 9109) on every create, update and delete of rulesets, rules,
// versions and log push jobs, and the refused write changes nothing; the zone list shows a
// scoped token only what it reaches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client';
import { bearer, ids, json, startServer, type TestServer } from './harness';

const otherAccount = 'b1946ac92492d2347c6235b4d2611184';
const secondAccount = '5a7805061c76ada191ed06f989cc3dac';
const proZoneToken = 'scoped-to-the-pro-zone';
const otherAccountToken = 'scoped-to-another-account';
const secondAccountToken = 'scoped-to-the-second-account';
const zone = ids.businessZone;

let server: TestServer;
let rulesetId: string;
let ruleId: string;
let jobId: number;
let accountRulesetId: string;

beforeAll(async () => {
  server = await startServer({
    tokens: [
      { token: proZoneToken, scope: { accounts: new Set(), zones: new Set([ids.proZone]) } },
      { token: otherAccountToken, scope: { accounts: new Set([otherAccount]), zones: null } },
      { token: secondAccountToken, scope: { accounts: new Set([secondAccount]), zones: null } },
    ],
  });
  const block = (path: string) => ({ action: 'block' as const, expression: `http.request.uri.path eq "${path}"` });
  const ruleset = await unwrap(
    server.api.POST('/zones/{zone_id}/rulesets', {
      params: { path: { zone_id: zone } },
      body: { name: 'guarded', kind: 'custom', phase: 'http_request_firewall_custom', rules: [block('/a'), block('/b')] },
    }),
  );
  await unwrap(server.api.POST('/zones/{zone_id}/rulesets/{ruleset_id}/rules', { params: { path: { zone_id: zone, ruleset_id: ruleset.id } }, body: block('/c') }));
  rulesetId = ruleset.id;
  ruleId = ruleset.rules![0]!.id!;
  jobId = (
    await unwrap(
      server.api.POST('/zones/{zone_id}/logpush/jobs', { params: { path: { zone_id: zone } }, body: { destination_conf: 's3://logs/guarded?region=us-east-1' } }),
    )
  ).id;
  const own = await server.store.rulesets.create({ account_id: ids.account }, { name: 'own', kind: 'custom', phase: 'http_request_firewall_custom', rules: [block('/x')] });
  await server.store.rulesets.addRule({ account_id: ids.account }, own.id, block('/y'));
  accountRulesetId = own.id;
});
afterAll(async () => {
  await server.stop();
});

const as = (token: string, init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...(init.headers as Record<string, string>), ...bearer(token) } });

/** Everything the writes below could change, read with full access. */
async function state(): Promise<string> {
  const reads = [
    `/zones/${zone}/rulesets/${rulesetId}`,
    `/zones/${zone}/rulesets/${rulesetId}/versions`,
    `/zones/${zone}/logpush/jobs`,
    `/accounts/${ids.account}/rulesets/${accountRulesetId}/versions`,
  ];
  return (await Promise.all(reads.map(async (path) => (await server.fetch(path, { headers: bearer() })).text()))).join('\n');
}

describe('writes with credentials that do not reach the zone or account', () => {
  const zoneWrites = (): [string, string, RequestInit][] => [
    ['add a rule', `/zones/${zone}/rulesets/${rulesetId}/rules`, json('POST', { action: 'block', expression: 'true' })],
    ['move a rule', `/zones/${zone}/rulesets/${rulesetId}/rules/${ruleId}`, json('PATCH', { position: { index: 2 } })],
    ['delete a rule', `/zones/${zone}/rulesets/${rulesetId}/rules/${ruleId}`, { method: 'DELETE' }],
    ['delete a version', `/zones/${zone}/rulesets/${rulesetId}/versions/1`, { method: 'DELETE' }],
    ['delete the ruleset', `/zones/${zone}/rulesets/${rulesetId}`, { method: 'DELETE' }],
    ['create a job', `/zones/${zone}/logpush/jobs`, json('POST', { destination_conf: 's3://logs/x?region=us-east-1' })],
    ['update a job', `/zones/${zone}/logpush/jobs/${jobId}`, json('PUT', { enabled: true })],
    ['delete a job', `/zones/${zone}/logpush/jobs/${jobId}`, { method: 'DELETE' }],
  ];
  const accountWrites = (): [string, string, RequestInit][] => [
    ['delete an account ruleset', `/accounts/${ids.account}/rulesets/${accountRulesetId}`, { method: 'DELETE' }],
    ['delete an account ruleset version', `/accounts/${ids.account}/rulesets/${accountRulesetId}/versions/1`, { method: 'DELETE' }],
  ];

  it('refuses every zone write with a token of another zone or another account, and changes nothing', async () => {
    const before = await state();
    for (const token of [proZoneToken, otherAccountToken]) {
      for (const [what, path, init] of zoneWrites()) {
        const response = await server.fetch(path, as(token, init));
        const body = (await response.json()) as { errors: { code: number }[] };
        expect({ what, token, status: response.status, codes: body.errors.map((e) => e.code) }).toEqual({ what, token, status: 403, codes: [9109] });
      }
    }
    expect(await state()).toBe(before);
  });

  it('refuses every account write with a token of another account or of a zone only, and changes nothing', async () => {
    const before = await state();
    for (const token of [otherAccountToken, proZoneToken]) {
      for (const [what, path, init] of accountWrites()) {
        const response = await server.fetch(path, as(token, init));
        expect({ what, token, status: response.status }).toEqual({ what, token, status: 403 });
      }
    }
    expect(await state()).toBe(before);
  });

  it('refuses the version reads too', async () => {
    for (const path of [`/zones/${zone}/rulesets/${rulesetId}/versions`, `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint/versions`]) {
      expect((await server.fetch(path, as(proZoneToken))).status).toBe(403);
    }
    expect((await server.fetch(`/accounts/${ids.account}/rulesets/${ids.owasp}/versions`, as(otherAccountToken))).status).toBe(403);
  });

  it('lets a scoped token write what it reaches', async () => {
    const fields = await unwrap(
      server.client({ token: proZoneToken }).GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
        params: { path: { zone_id: ids.proZone, phase: 'http_log_custom_fields' } },
      }),
    );
    const versions = await server.fetch(`/zones/${ids.proZone}/rulesets/${fields.id}/versions`, as(proZoneToken));
    expect(versions.status).toBe(200);
    const job = await server.fetch(`/zones/${ids.proZone}/logpush/jobs/1`, as(proZoneToken, json('PUT', { enabled: false })));
    expect(job.status).toBe(200);
  });
});

describe('the zone list with scoped credentials', () => {
  const names = async (token: string) => {
    const response = await server.fetch('/zones?order=name', as(token));
    return ((await response.json()) as { result: { name: string }[] }).result.map((z) => z.name);
  };

  it('lists only the zones a token reaches', async () => {
    expect(await names(proZoneToken)).toEqual(['example.org']);
    expect(await names(secondAccountToken)).toEqual(['sandbox-labs.dev']);
    expect(await names(otherAccountToken)).toEqual([]);
    expect((await names('test-token-with-access-to-everything')).length).toBe(7);
  });
});
