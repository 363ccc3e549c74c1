// Credentials, scopes, invitations, certificate packs and paging over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, paginate, unwrap } from '../../src/client';
import { apiKey, bearer, ids, startServer, userEmail, type TestServer } from './harness';

const otherAccount = 'b1946ac92492d2347c6235b4d2611184';
let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    tokens: [
      { token: 'scoped-to-the-pro-zone', email: 'jane.doe@example.com', scope: { accounts: new Set(), zones: new Set([ids.proZone]) } },
      { token: 'scoped-to-the-account', scope: { accounts: new Set([ids.account]), zones: null } },
    ],
  });
});
afterAll(async () => {
  await server.stop();
});

async function envelope(response: Response) {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as { success: boolean; result: unknown; errors: { code: number; message: string }[] };
}

describe('credentials', () => {
  const zonePath = `/zones/${ids.enterpriseZone}`;

  it('accepts the bearer token and the email + key pair', async () => {
    expect((await server.fetch(zonePath, { headers: bearer() })).status).toBe(200);
    expect((await server.fetch(zonePath, { headers: { 'X-Auth-Email': userEmail, 'X-Auth-Key': apiKey } })).status).toBe(200);
    expect((await server.fetch(zonePath, { headers: { 'X-Auth-Email': userEmail.toUpperCase(), 'X-Auth-Key': apiKey } })).status).toBe(200);
  });

  it.each([
    [{}, 400, 9106],
    [{ Authorization: 'Basic dXNlcjpwYXNz' }, 400, 6003],
    [{ Authorization: 'Bearer' }, 400, 6003],
    [{ Authorization: 'Bearer two words' }, 400, 6003],
    [{ 'X-Auth-Email': userEmail }, 400, 6003],
    [{ 'X-Auth-Key': apiKey }, 400, 6003],
    [{ 'X-Auth-Email': 'not-an-email', 'X-Auth-Key': apiKey }, 400, 6003],
    [{ Authorization: 'Bearer wrong-token' }, 403, 10000],
    [{ 'X-Auth-Email': userEmail, 'X-Auth-Key': 'wrong-key' }, 403, 10000],
    [{ 'X-Auth-Email': 'jane.doe@example.com', 'X-Auth-Key': apiKey }, 403, 10000],
  ])('answers %j with %i (code %i)', async (headers, status, code) => {
    const response = await server.fetch(zonePath, { headers });
    expect(response.status).toBe(status);
    const body = await envelope(response);
    expect(body.success).toBe(false);
    expect(body.errors.map((e) => e.code)).toEqual([code]);
    expect(JSON.stringify(body)).not.toMatch(/wrong-token|wrong-key|dXNlcjpwYXNz/);
  });

  it('tolerates the headers the official client sends', async () => {
    const response = await server.fetch(zonePath, {
      headers: { ...bearer(), 'api-version': '2024-01-01', 'X-Stainless-Lang': 'js', 'X-Stainless-Retry-Count': '0', 'User-Agent': 'Cloudflare/JS 7.3.0' },
    });
    expect(response.status).toBe(200);
  });
});

describe('scoped tokens', () => {
  it('reach their zone and nothing else (403, 9109)', async () => {
    const scoped = server.client({ token: 'scoped-to-the-pro-zone' });
    const zone = await unwrap(scoped.GET('/zones/{zone_id}', { params: { path: { zone_id: ids.proZone } } }));
    expect(zone.id).toBe(ids.proZone);
    const other = await unwrap(scoped.GET('/zones/{zone_id}', { params: { path: { zone_id: ids.enterpriseZone } } })).catch((e: ApiError) => e);
    expect(other).toBeInstanceOf(ApiError);
    expect((other as ApiError).status).toBe(403);
    expect((other as ApiError).codes).toEqual([9109]);
    const account = await unwrap(scoped.GET('/accounts/{account_id}/rulesets', { params: { path: { account_id: ids.account } } })).catch((e: ApiError) => e);
    expect((account as ApiError).codes).toEqual([9109]);
  });

  it('reach every zone of their account, and not another account', async () => {
    const scoped = server.client({ token: 'scoped-to-the-account' });
    for (const zone_id of [ids.enterpriseZone, ids.businessZone, ids.proZone]) {
      expect((await unwrap(scoped.GET('/zones/{zone_id}', { params: { path: { zone_id } } }))).id).toBe(zone_id);
    }
    const other = await scoped.GET('/accounts/{account_id}/rulesets', { params: { path: { account_id: otherAccount } } });
    expect(other.response.status === 403 || other.response.status === 404).toBe(true);
  });

  it('answers 404 for an unknown zone before looking at the scope', async () => {
    const response = await server.client({ token: 'scoped-to-the-pro-zone' }).GET('/zones/{zone_id}', { params: { path: { zone_id: '0'.repeat(32) } } });
    expect(response.response.status).toBe(404);
  });
});

describe('invitations', () => {
  it('lets only the invited user answer, once', async () => {
    const other = await server
      .client({ token: 'scoped-to-the-pro-zone' })
      .PATCH('/user/invites/{invite_id}', { params: { path: { invite_id: ids.invitation } }, body: { status: 'accepted' } });
    expect(other.response.status).toBe(403);
    const accepted = await unwrap(server.api.PATCH('/user/invites/{invite_id}', { params: { path: { invite_id: ids.invitation } }, body: { status: 'accepted' } }));
    expect(accepted).toMatchObject({ id: ids.invitation, status: 'accepted', invited_member_email: userEmail });
    const again = await server.api.PATCH('/user/invites/{invite_id}', { params: { path: { invite_id: ids.invitation } }, body: { status: 'rejected' } });
    expect(again.response.status).toBe(400);
    expect(new ApiError(400, again.error).codes).toEqual([1004]);
  });

  it('refuses a status other than accepted or rejected', async () => {
    const response = await server.fetch(`/user/invites/${ids.invitation}`, {
      method: 'PATCH',
      headers: { ...bearer(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'pending' }),
    });
    expect(response.status).toBe(400);
    expect((await envelope(response)).errors[0]!.message).toMatch(/status/);
  });
});

describe('certificate packs and paging', () => {
  const zone_id = ids.enterpriseZone;

  it('lists only active packs unless ssl_status or status is all', async () => {
    const active = await unwrap(server.api.GET('/zones/{zone_id}/ssl/certificate_packs', { params: { path: { zone_id }, query: { per_page: 100 } } }));
    expect(active.length).toBeGreaterThan(0);
    expect(active.every((p) => p.status === 'active')).toBe(true);
    const all = await unwrap(server.api.GET('/zones/{zone_id}/ssl/certificate_packs', { params: { path: { zone_id }, query: { per_page: 100, ssl_status: 'all' } } }));
    const viaStatus = await unwrap(server.api.GET('/zones/{zone_id}/ssl/certificate_packs', { params: { path: { zone_id }, query: { per_page: 100, status: 'all' } } }));
    expect(all.length).toBeGreaterThan(active.length);
    expect(viaStatus.map((p) => p.id)).toEqual(all.map((p) => p.id));
  });

  it('pages with correct result_info, an empty page past the end, and ordering', async () => {
    const all = await unwrap(server.api.GET('/zones/{zone_id}/ssl/certificate_packs', { params: { path: { zone_id }, query: { per_page: 100, status: 'all' } } }));
    const total = all.length;
    const { data } = await server.api.GET('/zones/{zone_id}/ssl/certificate_packs', {
      params: { path: { zone_id }, query: { status: 'all', per_page: 7, page: 2 } },
    });
    expect(data!.result_info).toEqual({ page: 2, per_page: 7, count: Math.min(7, total - 7), total_count: total, total_pages: Math.ceil(total / 7) });
    const past = await server.api.GET('/zones/{zone_id}/ssl/certificate_packs', {
      params: { path: { zone_id }, query: { status: 'all', per_page: 7, page: Math.ceil(total / 7) + 1 } },
    });
    expect(past.response.status).toBe(200);
    expect(past.data!.result).toEqual([]);
    expect(past.data!.result_info.count).toBe(0);
    const paged = [];
    for await (const pack of paginate((page) =>
      server.api.GET('/zones/{zone_id}/ssl/certificate_packs', { params: { path: { zone_id }, query: { status: 'all', per_page: 4, page } } }),
    )) {
      paged.push(pack.id);
    }
    expect(paged).toEqual(all.map((p) => p.id));
    const desc = await unwrap(
      server.api.GET('/zones/{zone_id}/ssl/certificate_packs', { params: { path: { zone_id }, query: { status: 'all', per_page: 100, order: 'created_on', direction: 'DESC' } } }),
    );
    expect(desc.map((p) => p.created_on)).toEqual([...all.map((p) => p.created_on)].sort().reverse());
  });

  it('refuses per_page above the documented maximum of 100', async () => {
    const response = await server.fetch(`/zones/${zone_id}/ssl/certificate_packs?per_page=101`, { headers: bearer() });
    expect(response.status).toBe(400);
    expect((await envelope(response)).errors[0]!.message).toMatch(/per_page.*100/);
  });
});
