// The resource families around the specification's table over HTTP, with the typed client and
// every response validated against the document: rulesets read and deleted, rules added, moved
// and deleted one at a time, ruleset versions, log push jobs and the zone list, bad input included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client';
import { apiFailure, bearer, ids, json, startServer, type TestServer } from './harness';

const CUSTOM = 'http_request_firewall_custom';
const MANAGED = 'http_request_firewall_managed';
const zone_id = ids.businessZone;

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
});

const block = (path: string, description = path) => ({ action: 'block' as const, expression: `http.request.uri.path eq "${path}"`, description });

/** A new custom ruleset of the Business zone with rules /a, /b, /c (version 1). */
async function customRuleset(name: string) {
  return unwrap(
    server.api.POST('/zones/{zone_id}/rulesets', {
      params: { path: { zone_id } },
      body: { name, kind: 'custom', phase: CUSTOM, rules: [block('/a'), block('/b'), block('/c')] },
    }),
  );
}

function addRule(rulesetId: string, body: Record<string, unknown>) {
  return server.api.POST('/zones/{zone_id}/rulesets/{ruleset_id}/rules', {
    params: { path: { zone_id, ruleset_id: rulesetId } },
    body: body as never,
  });
}

/** The ApiError a call of the typed client fails with. */
const fails = (call: Parameters<typeof unwrap>[0], status?: number) => apiFailure(unwrap(call), status);

const descriptions = (ruleset: { rules?: { description?: string }[] }) => ruleset.rules!.map((rule) => rule.description);

describe('rules one at a time', () => {
  it('adds rules at every kind of position, each answering the whole ruleset one version up', async () => {
    const ruleset = await customRuleset('positions');
    const [a, , c] = ruleset.rules!.map((rule) => rule.id!);
    const last = await unwrap(addRule(ruleset.id, block('/d')));
    expect(descriptions(last)).toEqual(['/a', '/b', '/c', '/d']);
    expect(last.version).toBe('2');
    expect(last.rules!.at(-1)).toMatchObject({ version: '1', enabled: true, expression: 'http.request.uri.path eq "/d"' });
    expect(descriptions(await unwrap(addRule(ruleset.id, { ...block('/first'), position: { before: '' } })))).toEqual(['/first', '/a', '/b', '/c', '/d']);
    expect(descriptions(await unwrap(addRule(ruleset.id, { ...block('/after-a'), position: { after: a } })))).toEqual([
      '/first', '/a', '/after-a', '/b', '/c', '/d',
    ]);
    expect(descriptions(await unwrap(addRule(ruleset.id, { ...block('/before-c'), position: { before: c } })))).toEqual([
      '/first', '/a', '/after-a', '/b', '/before-c', '/c', '/d',
    ]);
    const indexed = await unwrap(addRule(ruleset.id, { ...block('/third'), position: { index: 3 } }));
    expect(descriptions(indexed)).toEqual(['/first', '/a', '/third', '/after-a', '/b', '/before-c', '/c', '/d']);
    expect(indexed.version).toBe('6');
  });

  it('refuses bad positions, naming them, and changes nothing', async () => {
    const ruleset = await customRuleset('bad positions');
    const other = await customRuleset('other');
    const foreign = other.rules![0]!.id!;
    const refused = async (position: unknown, mentions: string) => {
      const error = await fails(addRule(ruleset.id, { ...block('/x'), position }), 400);
      expect(error.codes).toEqual([10021]);
      expect(error.message).toContain(mentions);
    };
    await refused({ before: foreign }, `position.before: rule ${foreign} is not a rule of ruleset ${ruleset.id}`);
    await refused({ after: foreign }, 'position.after');
    await refused({ before: ruleset.rules![0]!.id, after: ruleset.rules![1]!.id }, 'body/position must NOT have more than 1 properties');
    await refused({ index: 0 }, 'body/position/index must be >= 1');
    await refused({ index: 5 }, 'position.index: 5 is outside the ruleset (1 to 4)');
    await refused({}, 'body/position must NOT have fewer than 1 properties');
    const after = await unwrap(server.api.GET('/zones/{zone_id}/rulesets/{ruleset_id}', { params: { path: { zone_id, ruleset_id: ruleset.id } } }));
    expect(after.version).toBe('1');
    expect(descriptions(after)).toEqual(['/a', '/b', '/c']);
  });

  it('checks the added rule as a PUT would: expression, action for the phase, the ruleset constraints', async () => {
    const ruleset = await customRuleset('checked');
    const parse = await fails(addRule(ruleset.id, { action: 'block', expression: 'http.request.uri.pth eq "/"' }), 400);
    expect(parse.codes).toEqual([10026]);
    expect(parse.message).toContain('rule.expression: Filter parsing error');
    const action = await fails(addRule(ruleset.id, { action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'a' }] } }), 400);
    expect(action.codes).toContain(20200);
    const fields = await unwrap(
      server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: ids.proZone, phase: 'http_log_custom_fields' } } }),
    );
    const second = await fails(
      server.api.POST('/zones/{zone_id}/rulesets/{ruleset_id}/rules', {
        params: { path: { zone_id: ids.proZone, ruleset_id: fields.id } },
        body: { action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'x-more' }] } },
      }),
      400,
    );
    expect(second.message).toContain('holds one log_custom_field rule, not 2');
    const execute = await fails(
      addRule(ruleset.id, { action: 'execute', expression: 'true', action_parameters: { id: 'ffffffffffffffffffffffffffffffff' } }),
      400,
    );
    expect(execute.message).toContain('rule.action_parameters.id: no managed ruleset ffffffffffffffffffffffffffffffff');
    const list = await fails(
      server.api.PUT('/zones/{zone_id}/rulesets/{ruleset_id}', {
        params: { path: { zone_id, ruleset_id: ruleset.id } },
        body: { rules: [{ ...block('/a'), position: { index: 1 } }] },
      }),
      400,
    );
    expect(list.message).toContain('rules[0].position: a position applies only to one rule added or changed on its own');
  });

  it('moves a rule with PATCH position, and deletes a rule, one version each', async () => {
    const ruleset = await customRuleset('moves');
    const [a, b] = ruleset.rules!.map((rule) => rule.id!) as [string, string];
    const path = (rule_id: string) => ({ params: { path: { zone_id, ruleset_id: ruleset.id, rule_id } } });
    const moved = await unwrap(server.api.PATCH('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', { ...path(a), body: { position: { after: '' } } }));
    expect(descriptions(moved)).toEqual(['/b', '/c', '/a']);
    expect(moved.version).toBe('2');
    expect(moved.rules!.at(-1)).toMatchObject({ id: a, version: '1' });
    const bad = await fails(server.api.PATCH('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', { ...path(a), body: { position: { index: 4 } } }), 400);
    expect(bad.message).toContain('position.index: 4 is outside the ruleset (1 to 3)');
    const deleted = await unwrap(server.api.DELETE('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', path(b)));
    expect(descriptions(deleted)).toEqual(['/c', '/a']);
    expect(deleted.version).toBe('3');
    await fails(server.api.DELETE('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', path(b)), 404);
  });

  it('loses no rule when many are added to one ruleset at once, and bumps the version once each', async () => {
    const ruleset = await customRuleset('concurrent');
    const added = await Promise.all(Array.from({ length: 12 }, (_, i) => unwrap(addRule(ruleset.id, block(`/c${i}`)))));
    expect(new Set(added.map((r) => r.version)).size).toBe(12);
    const final = await unwrap(server.api.GET('/zones/{zone_id}/rulesets/{ruleset_id}', { params: { path: { zone_id, ruleset_id: ruleset.id } } }));
    expect(final.version).toBe('13');
    expect(descriptions(final).sort()).toEqual(['/a', '/b', '/c', ...Array.from({ length: 12 }, (_, i) => `/c${i}`)].sort());
  });
});

describe('rulesets read and deleted', () => {
  it('reads a zone ruleset, deletes it with 204 and no body, then answers 404', async () => {
    const ruleset = await customRuleset('to delete');
    const path = `/zones/${zone_id}/rulesets/${ruleset.id}`;
    expect((await unwrap(server.api.GET('/zones/{zone_id}/rulesets/{ruleset_id}', { params: { path: { zone_id, ruleset_id: ruleset.id } } }))).rules).toHaveLength(3);
    const response = await server.fetch(path, { method: 'DELETE', headers: bearer() });
    expect({ status: response.status, body: await response.text() }).toEqual({ status: 204, body: '' });
    expect((await server.fetch(path, { headers: bearer() })).status).toBe(404);
    expect((await server.fetch(`${path}/versions`, { headers: bearer() })).status).toBe(404);
    expect((await server.fetch(path, { method: 'DELETE', headers: bearer() })).status).toBe(404);
  });

  it('frees the phase of a deleted entry point', async () => {
    const created = await unwrap(
      server.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: ids.manyRulesZone, phase: CUSTOM } }, body: { rules: [block('/x')] } }),
    );
    const duplicate = await fails(
      server.api.POST('/zones/{zone_id}/rulesets', { params: { path: { zone_id: ids.manyRulesZone } }, body: { name: 'second', kind: 'zone', phase: CUSTOM } }),
      400,
    );
    expect(duplicate.codes).toEqual([20217]);
    expect((await server.fetch(`/zones/${ids.manyRulesZone}/rulesets/${created.id}`, { method: 'DELETE', headers: bearer() })).status).toBe(204);
    const again = await unwrap(
      server.api.POST('/zones/{zone_id}/rulesets', { params: { path: { zone_id: ids.manyRulesZone } }, body: { name: 'second', kind: 'zone', phase: CUSTOM } }),
    );
    expect(again).toMatchObject({ kind: 'zone', phase: CUSTOM, version: '1' });
    expect(again.id).not.toBe(created.id);
  });

  it('refuses to write or delete a managed ruleset from a zone or an account, saying so', async () => {
    const says = 'is managed by the platform: it cannot be changed or deleted';
    const attempts = [
      server.fetch(`/zones/${zone_id}/rulesets/${ids.owasp}`, { method: 'DELETE', headers: bearer() }),
      server.fetch(`/accounts/${ids.account}/rulesets/${ids.owasp}`, { method: 'DELETE', headers: bearer() }),
      server.fetch(`/accounts/${ids.account}/rulesets/${ids.managed}/versions/1`, { method: 'DELETE', headers: bearer() }),
      server.fetch(`/zones/${zone_id}/rulesets/${ids.owasp}/rules`, json('POST', block('/x'))),
      server.fetch(`/zones/${zone_id}/rulesets/${ids.owasp}/rules/${ids.owaspLastRule}`, json('PATCH', { enabled: false })),
      server.fetch(`/zones/${zone_id}/rulesets/${ids.owasp}/rules/${ids.owaspLastRule}`, { method: 'DELETE', headers: bearer() }),
      server.fetch(`/zones/${zone_id}/rulesets/${ids.owasp}`, json('PUT', { rules: [] })),
    ];
    for (const response of await Promise.all(attempts)) {
      const body = (await response.json()) as { errors: { code: number; message: string }[] };
      expect({ status: response.status, code: body.errors[0]?.code }).toEqual({ status: 400, code: 20200 });
      expect(body.errors[0]!.message).toContain(says);
    }
    const owasp = await unwrap(server.api.GET('/accounts/{account_id}/rulesets/{ruleset_id}', { params: { path: { account_id: ids.account, ruleset_id: ids.owasp } } }));
    expect(owasp.version).toBe('3');
  });
});

describe('ruleset versions', () => {
  it('lists versions without rules, reads each as it was, deletes earlier ones but never the latest', async () => {
    const ruleset = await customRuleset('versions');
    await unwrap(addRule(ruleset.id, block('/d')));
    const params = { path: { zone_id, ruleset_id: ruleset.id } };
    const versions = await unwrap(server.api.GET('/zones/{zone_id}/rulesets/{ruleset_id}/versions', { params }));
    expect(versions.map((v) => v.version)).toEqual(['1', '2']);
    expect(versions.every((v) => v.rules === undefined && v.id === ruleset.id)).toBe(true);
    const one = await unwrap(server.api.GET('/zones/{zone_id}/rulesets/{ruleset_id}/versions/{ruleset_version}', { params: { path: { ...params.path, ruleset_version: '1' } } }));
    expect(descriptions(one)).toEqual(['/a', '/b', '/c']);
    const latest = await server.fetch(`/zones/${zone_id}/rulesets/${ruleset.id}/versions/2`, { method: 'DELETE', headers: bearer() });
    const refusal = (await latest.json()) as { errors: { code: number; message: string }[] };
    expect({ status: latest.status, errors: refusal.errors }).toEqual({
      status: 400,
      errors: [{ code: 10021, message: `version 2 is the latest version of ruleset ${ruleset.id} and cannot be deleted` }],
    });
    expect((await server.fetch(`/zones/${zone_id}/rulesets/${ruleset.id}/versions/1`, { method: 'DELETE', headers: bearer() })).status).toBe(204);
    expect((await server.fetch(`/zones/${zone_id}/rulesets/${ruleset.id}/versions/1`, { headers: bearer() })).status).toBe(404);
    expect((await unwrap(server.api.GET('/zones/{zone_id}/rulesets/{ruleset_id}/versions', { params }))).map((v) => v.version)).toEqual(['2']);
    // Deleting a version is not a write of the ruleset.
    expect((await unwrap(server.api.GET('/zones/{zone_id}/rulesets/{ruleset_id}', { params }))).version).toBe('2');
  });

  it('serves the entry point versions by phase, 404 (10003) without an entry point', async () => {
    const path = { zone_id: ids.proZone, phase: MANAGED } as const;
    const versions = await unwrap(server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint/versions', { params: { path } }));
    expect(versions.map((v) => v.version)).toEqual(['1', '2']);
    const first = await unwrap(
      server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint/versions/{ruleset_version}', { params: { path: { ...path, ruleset_version: '1' } } }),
    );
    expect(first.version).toBe('1');
    expect(first.rules!.length).toBeGreaterThan(0);
    const none = await fails(
      server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint/versions', { params: { path: { zone_id: ids.enterpriseZone, phase: 'http_log_custom_fields' } } }),
      404,
    );
    expect(none.codes).toEqual([10003]);
  });

  it('exposes the versions of the account’s managed rulesets', async () => {
    const path = { account_id: ids.account, ruleset_id: ids.owasp };
    const versions = await unwrap(server.api.GET('/accounts/{account_id}/rulesets/{ruleset_id}/versions', { params: { path } }));
    expect(versions.map((v) => [v.version, v.kind])).toEqual([
      ['1', 'managed'],
      ['2', 'managed'],
      ['3', 'managed'],
    ]);
    const first = await unwrap(server.api.GET('/accounts/{account_id}/rulesets/{ruleset_id}/versions/{ruleset_version}', { params: { path: { ...path, ruleset_version: '1' } } }));
    expect(first.version).toBe('1');
    await fails(server.api.GET('/accounts/{account_id}/rulesets/{ruleset_id}/versions/{ruleset_version}', { params: { path: { ...path, ruleset_version: '4' } } }), 404);
  });
});

describe('log push jobs', () => {
  const jobPath = (job_id: number, zone: string = ids.proZone) => ({ params: { path: { zone_id: zone, job_id } } });

  it('lists, reads, updates in part, and deletes jobs by integer id', async () => {
    const created = await unwrap(
      server.api.POST('/zones/{zone_id}/logpush/jobs', {
        params: { path: { zone_id: ids.proZone } },
        body: { name: 'edge', destination_conf: 's3://logs/edge?region=us-east-1', logpull_options: 'fields=ClientIP&timestamps=rfc3339' },
      }),
    );
    const listed = await unwrap(server.api.GET('/zones/{zone_id}/logpush/jobs', { params: { path: { zone_id: ids.proZone } } }));
    expect(listed.map((job) => job.id)).toContain(created.id);
    expect(listed.map((job) => job.id)).toEqual([...listed.map((job) => job.id)].sort((a, b) => a - b));
    expect(await unwrap(server.api.GET('/zones/{zone_id}/logpush/jobs/{job_id}', jobPath(created.id)))).toEqual(created);
    const updated = await unwrap(
      server.api.PUT('/zones/{zone_id}/logpush/jobs/{job_id}', { ...jobPath(created.id), body: { logpull_options: 'fields=ClientIP,RequestHeaders,Cookies&timestamps=rfc3339', enabled: true } }),
    );
    expect(updated).toEqual({ ...created, logpull_options: 'fields=ClientIP,RequestHeaders,Cookies&timestamps=rfc3339', enabled: true });
    expect(await unwrap(server.api.PUT('/zones/{zone_id}/logpush/jobs/{job_id}', { ...jobPath(created.id), body: { name: null } }))).toEqual({ ...updated, name: null });
    expect(await unwrap(server.api.DELETE('/zones/{zone_id}/logpush/jobs/{job_id}', jobPath(created.id)))).toEqual({ id: created.id });
    await fails(server.api.GET('/zones/{zone_id}/logpush/jobs/{job_id}', jobPath(created.id)), 404);
    await fails(server.api.DELETE('/zones/{zone_id}/logpush/jobs/{job_id}', jobPath(created.id)), 404);
  });

  it('checks updates as creation does, and hides other zones’ jobs', async () => {
    const fields = await fails(server.api.PUT('/zones/{zone_id}/logpush/jobs/{job_id}', { ...jobPath(1), body: { logpull_options: 'fields=NoSuchField&timestamps=rfc3339' } }), 400);
    expect(fields.codes).toEqual([10021]);
    expect(fields.message).toContain('logpull_options:');
    expect(fields.message).toContain('NoSuchField');
    const destination = await fails(server.api.PUT('/zones/{zone_id}/logpush/jobs/{job_id}', { ...jobPath(1), body: { destination_conf: 'ftp://logs/x' } }), 400);
    expect(destination.message).toContain('destination_conf: scheme ftp is not supported');
    const dataset = await fails(server.api.PUT('/zones/{zone_id}/logpush/jobs/{job_id}', { ...jobPath(1), body: { dataset: 'dns_logs' } as never }), 400);
    expect(dataset.message).toContain('dataset');
    await fails(server.api.PUT('/zones/{zone_id}/logpush/jobs/{job_id}', { ...jobPath(1, ids.businessZone), body: { enabled: true } }), 404);
    await fails(server.api.GET('/zones/{zone_id}/logpush/jobs/{job_id}', jobPath(1, ids.businessZone)), 404);
    expect((await unwrap(server.api.GET('/zones/{zone_id}/logpush/jobs/{job_id}', jobPath(1)))).enabled).toBe(true);
  });
});

describe('the zone list', () => {
  const list = (query: Record<string, unknown>) => unwrap(server.api.GET('/zones', { params: { query: query as never } }));
  const names = async (query: Record<string, unknown>) => (await list(query)).map((zone) => zone.name);

  it('filters by name with operators, status, account, and matches all or any', async () => {
    expect(await names({ name: 'example.com' })).toEqual(['example.com']);
    expect(await names({ name: 'contains:SHOP' })).toEqual(['example-shop.com']);
    expect(await names({ name: 'ends_with:.dev' })).toEqual(['sandbox-labs.dev']);
    expect(await names({ 'account.name': 'starts_with:Sandbox' })).toEqual(['sandbox-labs.dev']);
    expect(await names({ 'account.id': ids.account, name: 'starts_with:example-', direction: 'desc' })).toEqual([
      'example-shop.com', 'example-blog.com', 'example-api.com',
    ]);
    expect(await names({ name: 'example.org', 'account.name': 'Sandbox Labs', match: 'any' })).toEqual(['example.org', 'sandbox-labs.dev']);
    expect(await names({ status: 'pending' })).toEqual([]);
  });

  it('pages 5 to 50 zones and orders by the real attributes', async () => {
    const { data } = await server.api.GET('/zones', { params: { query: { per_page: 5, page: 2, order: 'name' } } });
    expect(data!.result_info).toEqual({ page: 2, per_page: 5, count: 2, total_count: 7, total_pages: 2 });
    expect((await list({ order: 'account.name', direction: 'desc' }))[0]!.name).toBe('sandbox-labs.dev');
    for (const [query, mentions] of [
      [{ per_page: 4 }, 'query/per_page'],
      [{ per_page: 51 }, 'query/per_page'],
      [{ direction: 'ASC' }, 'query/direction'],
      [{ order: 'created_on' }, 'query/order'],
      [{ 'account.id': 'not-an-id' }, 'query/account.id'],
    ] as const) {
      const error = await apiFailure(list(query), 400);
      expect(error.message).toContain(mentions);
    }
  });
});
