// Rulesets over HTTP with the typed client, every response validated against the document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client';
import { apiFailure, ids, startServer, type TestServer } from './harness';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
});


const hex32 = /^[0-9a-f]{32}$/;

/** The action parameters of a rule of any action (undefined for actions without them). */
function paramsOf(rule: object | undefined): unknown {
  return (rule as { action_parameters?: unknown } | undefined)?.action_parameters;
}
const microseconds = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('account rulesets', () => {
  it('lists the managed rulesets without their rules', async () => {
    const { data } = await server.api.GET('/accounts/{account_id}/rulesets', { params: { path: { account_id: ids.account } } });
    const found = data!.result.map((r) => r.id);
    expect(found).toContain(ids.owasp);
    expect(found).toContain(ids.managed);
    expect(data!.result.every((r) => !('rules' in r))).toBe(true);
    expect(data!.result_info).toMatchObject({ page: 1, per_page: 20, count: data!.result.length });
  });

  it('answers the OWASP ruleset with its rules, the last one carrying threshold 40 and block', async () => {
    const owasp = await unwrap(
      server.api.GET('/accounts/{account_id}/rulesets/{ruleset_id}', { params: { path: { account_id: ids.account, ruleset_id: ids.owasp } } }),
    );
    expect(owasp.kind).toBe('managed');
    expect(owasp.phase).toBe('http_request_firewall_managed');
    const last = owasp.rules!.at(-1)!;
    expect(last.id).toBe(ids.owaspLastRule);
    expect(last).toMatchObject({ action: 'block', score_threshold: 40 });
    const tags = new Set(owasp.rules!.flatMap((r) => ('categories' in r ? (r.categories ?? []) : [])));
    for (const level of [1, 2, 3, 4]) expect(tags).toContain(`paranoia-level-${level}`);
  });

  it('pages by cursor, as the official client does, and refuses a cursor it did not issue', async () => {
    const account_id = ids.account;
    const first = await server.api.GET('/accounts/{account_id}/rulesets', { params: { path: { account_id }, query: { per_page: 1, order: 'name', direction: 'DESC' } } });
    const cursor = first.data!.result_info.cursor!;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = await server.api.GET('/accounts/{account_id}/rulesets', { params: { path: { account_id }, query: { cursor } } });
    expect(second.data!.result_info).toMatchObject({ page: 2, per_page: 1 });
    const names = [first.data!.result[0]!.name, second.data!.result[0]!.name];
    expect(names).toEqual([...names].sort().reverse());
    const all = await unwrap(server.api.GET('/accounts/{account_id}/rulesets', { params: { path: { account_id }, query: { per_page: 100 } } }));
    if (all.length === 2) expect(second.data!.result_info.cursor).toBeUndefined();
    const forged = await apiFailure(unwrap(server.api.GET('/accounts/{account_id}/rulesets', { params: { path: { account_id }, query: { cursor: 'bm90LW91cnM' } } })), 400);
    expect(forged.errors[0]!.message).toMatch(/query\/cursor is not a cursor this service issued/);
  });

  it('answers 404 (7003, 7000) for an unknown ruleset', async () => {
    const error = await apiFailure(
      unwrap(server.api.GET('/accounts/{account_id}/rulesets/{ruleset_id}', { params: { path: { account_id: ids.account, ruleset_id: 'f'.repeat(32) } } })),
    );
    expect(error.status).toBe(404);
    expect(error.codes).toEqual([7003, 7000]);
  });
});

describe('zone rulesets', () => {
  const zone_id = ids.businessZone;

  it('creates an entry point (200), refuses a second one for the phase (400, 20217)', async () => {
    const created = await unwrap(
      server.api.POST('/zones/{zone_id}/rulesets', {
        params: { path: { zone_id } },
        body: { name: 'Custom rules', kind: 'zone', phase: 'http_request_firewall_custom', description: 'firewall' },
      }),
    );
    expect(created.id).toMatch(hex32);
    expect(created.version).toBe('1');
    expect(created.last_updated).toMatch(microseconds);
    expect(created.rules).toEqual([]);
    const second = await apiFailure(
      unwrap(server.api.POST('/zones/{zone_id}/rulesets', { params: { path: { zone_id } }, body: { name: 'again', kind: 'zone', phase: 'http_request_firewall_custom' } })),
    );
    expect(second.status).toBe(400);
    expect(second.codes).toEqual([20217]);

    const listed = await unwrap(server.api.GET('/zones/{zone_id}/rulesets', { params: { path: { zone_id } } }));
    expect(listed.map((r) => r.id)).toContain(created.id);
  });

  it('PUT replaces every rule, keeps sent ids, bumps the version and moves last_updated', async () => {
    const entry = await unwrap(
      server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id, phase: 'http_request_firewall_custom' } } }),
    );
    const first = await unwrap(
      server.api.PUT('/zones/{zone_id}/rulesets/{ruleset_id}', {
        params: { path: { zone_id, ruleset_id: entry.id } },
        body: {
          rules: [
            { action: 'block', expression: 'http.request.uri.path contains "/admin"', description: 'admin' },
            { action: 'log', expression: 'cf.threat_score gt 10' },
          ],
        },
      }),
    );
    expect(first.version).toBe(String(Number(entry.version) + 1));
    expect(first.rules).toHaveLength(2);
    const [admin, logRule] = first.rules!;
    expect(admin!.id).toMatch(hex32);
    expect(admin!.version).toBe('1');
    expect(admin).toMatchObject({ action: 'block', enabled: true, description: 'admin' });

    const second = await unwrap(
      server.api.PUT('/zones/{zone_id}/rulesets/{ruleset_id}', {
        params: { path: { zone_id, ruleset_id: entry.id } },
        body: { rules: [{ id: admin!.id, action: 'managed_challenge', expression: 'http.request.uri.path contains "/admin"' }] },
      }),
    );
    expect(second.version).toBe(String(Number(first.version) + 1));
    expect(second.rules!.map((r) => r.id)).toEqual([admin!.id]);
    expect(second.rules![0]!.action).toBe('managed_challenge');
    expect(second.rules![0]!.version).toBe('2');
    expect(second.rules!.some((r) => r.id === logRule!.id)).toBe(false);
    expect(second.last_updated >= first.last_updated).toBe(true);
  });

  it('refuses a rule whose expression does not parse, with the parse error', async () => {
    const entry = await unwrap(
      server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id, phase: 'http_request_firewall_custom' } } }),
    );
    const error = await apiFailure(
      unwrap(
        server.api.PUT('/zones/{zone_id}/rulesets/{ruleset_id}', {
          params: { path: { zone_id, ruleset_id: entry.id } },
          body: { rules: [{ action: 'block', expression: 'ip.src in {2001:db8::/2000}' }] },
        }),
      ),
    );
    expect(error.status).toBe(400);
    expect(error.codes).toEqual([10026]);
    expect(error.errors[0]!.message).toMatch(/^rules\[0\]\.expression: Filter parsing error \(1:23\):/);
    const after = await unwrap(
      server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id, phase: 'http_request_firewall_custom' } } }),
    );
    expect(after.version).toBe(entry.version);
  });

  it('refuses an action the phase does not allow', async () => {
    const error = await apiFailure(
      unwrap(
        server.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
          params: { path: { zone_id, phase: 'http_request_firewall_custom' } },
          body: { rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'x-a' }] } }] },
        }),
      ),
    );
    expect(error.codes).toContain(20200);
    expect(error.errors.map((e) => e.message).join()).toMatch(/not allowed in phase http_request_firewall_custom/);
  });

  it('answers 404 (10003) for a phase without entry point', async () => {
    const error = await apiFailure(
      unwrap(server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id, phase: 'http_log_custom_fields' } } })),
    );
    expect(error.status).toBe(404);
    expect(error.codes).toEqual([10003]);
  });

  it('refuses unknown fields in the entry point PUT (kind is not accepted)', async () => {
    const response = await server.fetch(`/zones/${zone_id}/rulesets/phases/http_request_firewall_custom/entrypoint`, {
      method: 'PUT',
      headers: { Authorization: 'Bearer test-token-with-access-to-everything', 'Content-Type': 'application/json' },
      body: JSON.stringify({ kind: 'zone', rules: [] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: { code: number; message: string }[] };
    expect(body.errors[0]!.code).toBe(10021);
    expect(body.errors[0]!.message).toMatch(/kind|additional/i);
  });
});

describe('execute rules and overrides', () => {
  const zone_id = ids.proZone;
  let rulesetId: string;
  let owaspRuleId: string;

  beforeAll(async () => {
    const entry = await unwrap(
      server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id, phase: 'http_request_firewall_managed' } } }),
    );
    rulesetId = entry.id;
    owaspRuleId = entry.rules!.find((r) => r.action === 'execute' && (paramsOf(r) as { id?: string }).id === ids.owasp)!.id!;
  });

  function patch(body: Record<string, unknown>) {
    return unwrap(
      server.api.PATCH('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', {
        params: { path: { zone_id, ruleset_id: rulesetId, rule_id: owaspRuleId } },
        body: body as never,
      }),
    );
  }

  it('PATCH changes only what is sent, bumps the version and answers the whole ruleset', async () => {
    const before = await unwrap(
      server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id, phase: 'http_request_firewall_managed' } } }),
    );
    const rule = before.rules!.find((r) => r.id === owaspRuleId)!;
    const after = await patch({ description: 'OWASP, described' });
    expect(after.id).toBe(rulesetId);
    expect(after.version).toBe(String(Number(before.version) + 1));
    const changed = after.rules!.find((r) => r.id === owaspRuleId)!;
    expect(changed.description).toBe('OWASP, described');
    expect(paramsOf(changed)).toEqual(paramsOf(rule));
    expect(changed.expression).toBe(rule.expression);
    expect(changed.version).toBe(String(Number(rule.version) + 1));
  });

  it('sets the paranoia level with category overrides (how-to 1)', async () => {
    const after = await patch({
      action: 'execute',
      action_parameters: {
        id: ids.owasp,
        overrides: { categories: [{ category: 'paranoia-level-2', enabled: false }, { category: 'paranoia-level-3', enabled: false }, { category: 'paranoia-level-4', enabled: false }] },
      },
      expression: 'true',
      enabled: true,
    });
    const rule = after.rules!.find((r) => r.id === owaspRuleId)!;
    expect(paramsOf(rule)).toMatchObject({ overrides: { categories: [{ category: 'paranoia-level-2' }, { category: 'paranoia-level-3' }, { category: 'paranoia-level-4' }] } });
    const status = await unwrap(server.api.GET('/zones/{zone_id}/waf_migration/status', { params: { path: { zone_id } } }));
    expect(status.paranoia_level).toBe(1);
  });

  it('sets the score threshold and action on the last rule (how-to 2)', async () => {
    const owasp = await unwrap(
      server.api.GET('/accounts/{account_id}/rulesets/{ruleset_id}', { params: { path: { account_id: ids.account, ruleset_id: ids.owasp } } }),
    );
    const lastId = owasp.rules!.at(-1)!.id!;
    const after = await patch({
      action_parameters: { id: ids.owasp, version: 'latest', overrides: { rules: [{ id: lastId, score_threshold: 25, action: 'managed_challenge' }] } },
    });
    const rule = after.rules!.find((r) => r.id === owaspRuleId)!;
    expect(paramsOf(rule)).toEqual({ id: ids.owasp, version: 'latest', overrides: { rules: [{ id: lastId, score_threshold: 25, action: 'managed_challenge' }] } });
  });

  it.each([
    [{ id: 'a'.repeat(32) }, /no managed ruleset a{32}/],
    [{ id: ids.owasp, version: '999' }, /has no version 999/],
    [{ id: ids.owasp, overrides: { rules: [{ id: 'b'.repeat(32), enabled: false }] } }, /has no rule b{32}/],
    [{ id: ids.owasp, overrides: { categories: [{ category: 'paranoia-level-9', enabled: false }] } }, /carries the tag "paranoia-level-9"/],
  ])('refuses execute parameters %j', async (action_parameters, message) => {
    const error = await apiFailure(patch({ action_parameters }));
    expect(error.status).toBe(400);
    expect(error.codes).toEqual([20200]);
    expect(error.errors[0]!.message).toMatch(message);
  });

  it('refuses a score threshold out of range and an unknown override action', async () => {
    const owasp = await unwrap(
      server.api.GET('/accounts/{account_id}/rulesets/{ruleset_id}', { params: { path: { account_id: ids.account, ruleset_id: ids.owasp } } }),
    );
    const lastId = owasp.rules!.at(-1)!.id!;
    for (const override of [{ id: lastId, score_threshold: 0 }, { id: lastId, score_threshold: 101 }, { id: lastId, action: 'explode' }]) {
      const error = await apiFailure(patch({ action_parameters: { id: ids.owasp, overrides: { rules: [override] } } }));
      expect(error.status).toBe(400);
      expect(error.codes).toContain(10021);
    }
  });
});
