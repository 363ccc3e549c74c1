// The platform's official TypeScript client library (npm `cloudflare`), unchanged, pointed at the
// server with `baseURL`: every operation of ours it has a method for, and the spec's three how-to
// sequences end to end on the Pro zone. Retries are off, so a refusal cannot hide behind a retry.
// The library has no method for the filter validation or the WAF migration paths, so those are
// covered by the typed client's tests only. The families around the table (rule, version, job
// and zone list calls) are driven in official-client-families.test.ts.
import Cloudflare from 'cloudflare';
import type { ExecuteRule } from 'cloudflare/resources/rulesets/rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client';
import { ids, startServer, token, userEmail, type TestServer } from './harness';
import { all, officialClient, refusal, type SentRequest } from './official-client';

const MANAGED = 'http_request_firewall_managed';
const CUSTOM_FIELDS = 'http_log_custom_fields';
const hexId = /^[0-9a-f]{32}$/;

/** The execute rule of a ruleset's rules that runs the given managed ruleset. */
function executeRuleOf(rules: readonly { action?: string }[], managedId: string): ExecuteRule {
  const rule = (rules as ExecuteRule[]).find((r) => r.action === 'execute' && r.action_parameters?.id === managedId);
  expect(rule, `an execute rule of ${managedId}`).toBeDefined();
  return rule!;
}

/** A ruleset as `rulesets.get` types it. */
type Ruleset = Awaited<ReturnType<Cloudflare['rulesets']['get']>>;

/**
 * The library types the answers of its ruleset writes as `Ruleset | unknown`; this checks the
 * answer is a ruleset with its rules before tests read it as one.
 */
async function ruleset(call: Promise<unknown>): Promise<Ruleset> {
  const value = (await call) as Ruleset;
  expect(value.id).toMatch(hexId);
  expect(Array.isArray(value.rules)).toBe(true);
  return value;
}

describe('operations through the official client', () => {
  let server: TestServer;
  let cf: Cloudflare;
  let sent: SentRequest[];

  beforeAll(async () => {
    server = await startServer();
    ({ cf, sent } = officialClient(server));
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('sends its own headers, and the server takes them', async () => {
    const zone = await cf.zones.get({ zone_id: ids.proZone });
    expect(zone.id).toBe(ids.proZone);
    const request = sent.at(-1)!;
    expect(request.headers.get('authorization')).toBe(`Bearer ${token}`);
    expect(request.headers.get('api-version')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(request.headers.get('x-stainless-lang')).toBe('js');
    expect(request.headers.get('user-agent')).toMatch(/^Cloudflare\/JS /);
  });

  it('zones.get answers the zone record', async () => {
    const zone = await cf.zones.get({ zone_id: ids.proZone });
    expect(zone).toMatchObject({ id: ids.proZone, name: 'example.org', status: 'active', plan: { legacy_id: 'pro' } });
    expect(zone.account.id).toBe(ids.account);
  });

  it('zones.get works with the email and global key scheme', async () => {
    const { cf: keyed, sent: keyedSent } = officialClient(server, { credentials: 'key' });
    const zone = await keyed.zones.get({ zone_id: ids.enterpriseZone });
    expect(zone.plan?.legacy_id).toBe('enterprise');
    expect(keyedSent[0]!.headers.get('x-auth-email')).toBe(userEmail);
    expect(keyedSent[0]!.headers.has('authorization')).toBe(false);
  });

  it('ssl.certificatePacks.list pages through every pack, stopping at the first empty page', async () => {
    const expected = await unwrap(
      server.api.GET('/zones/{zone_id}/ssl/certificate_packs', {
        params: { path: { zone_id: ids.enterpriseZone }, query: { status: 'all', per_page: 100 } },
      }),
    );
    expect(expected.length).toBeGreaterThan(10);
    const before = sent.length;
    const packs = await all(cf.ssl.certificatePacks.list({ zone_id: ids.enterpriseZone, status: 'all', per_page: 10 }));

    expect(packs.map((p) => p.id)).toEqual(expected.map((p) => p.id));
    const pagesAsked = sent.slice(before).map((r) => r.url.searchParams.get('page') ?? '1');
    const lastPage = Math.ceil(expected.length / 10);
    // The client asks for the page after the last one and stops on its empty result.
    expect(pagesAsked).toEqual(Array.from({ length: lastPage + 1 }, (_, i) => String(i + 1)));
  });

  it('ssl.certificatePacks.list without status lists only active packs', async () => {
    const packs = await all(cf.ssl.certificatePacks.list({ zone_id: ids.enterpriseZone }));
    const everything = await all(cf.ssl.certificatePacks.list({ zone_id: ids.enterpriseZone, status: 'all' }));
    expect(packs.length).toBeGreaterThan(0);
    expect(packs.length).toBeLessThan(everything.length);
    expect(new Set(packs.map((p) => p.status))).toEqual(new Set(['active']));
  });

  it('rulesets.list of the account lists the managed rulesets without their rules', async () => {
    const rulesets = await all(cf.rulesets.list({ account_id: ids.account }));
    expect(rulesets.map((r) => r.id).sort()).toEqual([ids.owasp, ids.managed].sort());
    for (const ruleset of rulesets) {
      expect(ruleset).toMatchObject({ kind: 'managed', phase: MANAGED });
      expect(ruleset).not.toHaveProperty('rules');
    }
  });

  it('rulesets.list pages the way the library pages rulesets (by cursor)', async () => {
    // The library follows `result_info.cursor` and sends it back as `cursor`; without one it stops
    // after the first page, so a server that pages rulesets only by number loses the rest.
    const rulesets = await all(cf.rulesets.list({ account_id: ids.account, per_page: 1 }));
    expect(rulesets.map((r) => r.id).sort()).toEqual([ids.owasp, ids.managed].sort());
  });

  it('rulesets.list of a zone lists its entry points', async () => {
    const rulesets = await all(cf.rulesets.list({ zone_id: ids.proZone }));
    expect(rulesets.map((r) => `${r.kind} ${r.phase}`).sort()).toEqual([`zone ${CUSTOM_FIELDS}`, `zone ${MANAGED}`]);
  });

  it('rulesets.get of the OWASP ruleset answers its rules, the last one carrying threshold and action', async () => {
    const owasp = await cf.rulesets.get(ids.owasp, { account_id: ids.account });
    expect(owasp).toMatchObject({ id: ids.owasp, kind: 'managed', phase: MANAGED });
    expect(owasp.version).toMatch(/^[1-9]\d*$/);
    const last = owasp.rules.at(-1) as { id: string; action: string; score_threshold?: number };
    expect(last).toMatchObject({ id: ids.owaspLastRule, action: 'block', score_threshold: 40 });
  });

  it('rulesets.create makes a phase entry point, and a second one is a 400 (20217) that is not retried', async () => {
    const created = await ruleset(cf.rulesets.create({
      zone_id: ids.proZone,
      name: 'Zone-level phase entry point',
      description: 'Custom firewall rules',
      kind: 'zone',
      phase: 'http_request_firewall_custom',
    }));
    expect(created).toMatchObject({ kind: 'zone', phase: 'http_request_firewall_custom', version: '1', rules: [] });
    expect(created.id).toMatch(hexId);

    // With the library's default retries: it retries 409 answers, which is why this one is a 400.
    const retrying = officialClient(server, { maxRetries: 2 });
    const second = await refusal(
      retrying.cf.rulesets.create({ zone_id: ids.proZone, name: 'again', kind: 'zone', phase: 'http_request_firewall_custom' }),
    );
    expect(second).toEqual({ status: 400, codes: [20217], name: 'BadRequestError' });
    expect(retrying.sent).toHaveLength(1);
  });

  it('rulesets.update replaces the rules, keeps sent ids and moves the version', async () => {
    const created = await ruleset(
      cf.rulesets.create({ zone_id: ids.businessZone, name: 'Custom rules', kind: 'custom', phase: 'http_request_firewall_custom' }),
    );
    const first = await ruleset(cf.rulesets.update(created.id, {
      zone_id: ids.businessZone,
      rules: [
        { action: 'block', expression: 'http.request.uri.path eq "/admin"', description: 'No admin' },
        { action: 'log', expression: 'ip.src in {192.0.2.0/24}' },
      ],
    }));
    expect(first.version).toBe('2');
    expect(first.rules.map((r) => r.action)).toEqual(['block', 'log']);
    const kept = first.rules[0]!;
    expect(kept.id).toMatch(hexId);
    expect(first.last_updated).toMatch(/\.\d{6}Z$/);

    const second = await ruleset(cf.rulesets.update(created.id, {
      zone_id: ids.businessZone,
      rules: [{ id: kept.id, action: 'block', expression: 'http.request.uri.path eq "/wp-admin"' }],
    }));
    expect(second.version).toBe('3');
    expect(second.rules).toHaveLength(1);
    expect(second.rules[0]).toMatchObject({ id: kept.id, expression: 'http.request.uri.path eq "/wp-admin"' });
  });

  it('rulesets.phases.get answers the entry point, and a 404 (10003) where there is none', async () => {
    const entry = await cf.rulesets.phases.get(MANAGED, { zone_id: ids.proZone });
    expect(entry).toMatchObject({ kind: 'zone', phase: MANAGED });
    executeRuleOf(entry.rules, ids.owasp);

    const missing = await refusal(cf.rulesets.phases.get('http_response_firewall_managed', { zone_id: ids.proZone }));
    expect(missing).toEqual({ status: 404, codes: [10003], name: 'NotFoundError' });
  });

  it('rulesets.phases.update creates an absent entry point, then replaces its rules', async () => {
    const phase = 'http_request_firewall_custom';
    const created = await ruleset(cf.rulesets.phases.update(phase, {
      zone_id: ids.enterpriseZone,
      name: 'Custom firewall rules',
      rules: [{ action: 'managed_challenge', expression: 'cf.threat_score gt 10' }],
    }));
    expect(created).toMatchObject({ kind: 'zone', phase, name: 'Custom firewall rules' });
    expect(created.rules).toHaveLength(1);

    const replaced = await ruleset(cf.rulesets.phases.update(phase, { zone_id: ids.enterpriseZone, rules: [] }));
    expect(replaced.id).toBe(created.id);
    expect(Number(replaced.version)).toBe(Number(created.version) + 1);
    expect(replaced.rules).toEqual([]);
    expect(await cf.rulesets.phases.get(phase, { zone_id: ids.enterpriseZone })).toEqual(replaced);
  });

  it('rulesets.rules.edit changes only what was sent and answers the whole ruleset', async () => {
    const entry = await cf.rulesets.phases.get(MANAGED, { zone_id: ids.proZone });
    const rule = executeRuleOf(entry.rules, ids.managed);
    const edited = await ruleset(cf.rulesets.rules.edit(rule.id!, { ruleset_id: entry.id, zone_id: ids.proZone, enabled: false }));

    expect(edited.id).toBe(entry.id);
    expect(Number(edited.version)).toBe(Number(entry.version) + 1);
    expect(edited.rules).toHaveLength(entry.rules.length);
    const after = executeRuleOf(edited.rules, ids.managed);
    const { enabled: _was, version: _v, last_updated: _l, ...unchanged } = rule;
    expect(after).toMatchObject({ ...unchanged, enabled: false });
    const others = (list: typeof entry.rules) => list.filter((r) => r.id !== rule.id);
    expect(others(edited.rules)).toEqual(others(entry.rules));
  });

  it('logpush.jobs.create answers the job with an integer id, and stores it', async () => {
    const job = await cf.logpush.jobs.create({
      zone_id: ids.proZone,
      name: 'example.org',
      destination_conf: 's3://logs/http_requests/{DATE}?region=us-east-1',
      dataset: 'http_requests',
      logpull_options: 'fields=ClientIP,ClientRequestHost,RequestHeaders&timestamps=rfc3339',
    });
    expect(job).toMatchObject({ name: 'example.org', dataset: 'http_requests', enabled: false });
    expect(Number.isInteger(job?.id)).toBe(true);
    expect(await server.store.logpushJobs.get(ids.proZone, job!.id!)).toMatchObject({
      destination_conf: 's3://logs/http_requests/{DATE}?region=us-east-1',
      logpull_options: 'fields=ClientIP,ClientRequestHost,RequestHeaders&timestamps=rfc3339',
    });
  });

  it('user.invites.edit accepts the invitation once; a second answer is a 400 (1004)', async () => {
    const invitation = await cf.user.invites.edit(ids.invitation, { status: 'accepted' });
    expect(invitation).toMatchObject({ id: ids.invitation, status: 'accepted', invited_member_email: userEmail });
    const again = await refusal(cf.user.invites.edit(ids.invitation, { status: 'rejected' }));
    expect(again).toEqual({ status: 400, codes: [1004], name: 'BadRequestError' });
  });

  it('surfaces the server refusals as the client error classes, with the envelope codes', async () => {
    expect(await refusal(cf.zones.get({ zone_id: 'ffffffffffffffffffffffffffffffff' }))).toEqual({
      status: 404,
      codes: [7003, 7000],
      name: 'NotFoundError',
    });
    const stranger = new Cloudflare({
      baseURL: server.baseUrl,
      apiToken: 'not-a-known-token',
      apiEmail: null,
      apiKey: null,
      userServiceKey: null,
      maxRetries: 0,
    });
    expect(await refusal(stranger.zones.get({ zone_id: ids.proZone }))).toEqual({ status: 403, codes: [10000], name: 'PermissionDeniedError' });
  });
});

// ---------------------------------------------------------------------------------------------
// The spec's how-to sequences, written as a user of the official client would write them

const paranoiaTags = [1, 2, 3, 4].map((level) => `paranoia-level-${level}`);

type Overrides = NonNullable<NonNullable<ExecuteRule['action_parameters']>['overrides']>;

/** The step both OWASP how-tos end with: PATCH the zone's execute rule of the ruleset with new overrides. */
async function editOverrides(cf: Cloudflare, zoneId: string, managedId: string, change: (overrides: Overrides) => Overrides) {
  const entry = await cf.rulesets.phases.get(MANAGED, { zone_id: zoneId });
  const rule = executeRuleOf(entry.rules, managedId);
  const parameters = rule.action_parameters!;
  return ruleset(
    cf.rulesets.rules.edit(rule.id!, {
      ruleset_id: entry.id,
      zone_id: zoneId,
      action: 'execute',
      action_parameters: { ...parameters, overrides: change(parameters.overrides ?? {}) },
    }),
  );
}

/** How-to 1: set the OWASP paranoia level by disabling the tags of every higher level. */
async function setParanoiaLevel(cf: Cloudflare, accountId: string, zoneId: string, level: 1 | 2 | 3 | 4) {
  const managed = await all(cf.rulesets.list({ account_id: accountId }));
  const owasp = managed.find((ruleset) => ruleset.name.includes('OWASP'));
  if (!owasp) throw new Error('no OWASP ruleset in the account');
  const categories = paranoiaTags.slice(level).map((category) => ({ category, enabled: false }));
  return editOverrides(cf, zoneId, owasp.id, (overrides) => ({ ...overrides, categories }));
}

/** How-to 2: set the score threshold and action with a rule override of the ruleset's last rule. */
async function setScoreThreshold(
  cf: Cloudflare,
  accountId: string,
  zoneId: string,
  owaspId: string,
  threshold: number,
  action: 'block' | 'managed_challenge' | 'js_challenge' | 'challenge' | 'log',
) {
  const owasp = await cf.rulesets.get(owaspId, { account_id: accountId });
  const last = owasp.rules.at(-1)!;
  return editOverrides(cf, zoneId, owaspId, (overrides) => ({
    ...overrides,
    rules: [{ id: last.id!, score_threshold: threshold, action }],
  }));
}

interface CustomFields {
  request_fields: { name: string }[];
  response_fields: { name: string }[];
  cookie_fields: { name: string }[];
}

/** How-to 3: the custom fields ruleset (created when absent), its one rule, and a log push job. */
async function configureCustomFields(cf: Cloudflare, zoneId: string, fields: CustomFields, logpullFields: string[]) {
  const zoneRulesets = await all(cf.rulesets.list({ zone_id: zoneId }));
  const existing = zoneRulesets.find((r) => r.kind === 'zone' && r.phase === CUSTOM_FIELDS);
  const created = !existing;
  const target =
    existing ??
    (await ruleset(
      cf.rulesets.create({ zone_id: zoneId, name: 'Zone-level phase entry point', kind: 'zone', description: 'Custom log fields', phase: CUSTOM_FIELDS }),
    ));
  const updated = await ruleset(cf.rulesets.update(target.id, {
    zone_id: zoneId,
    rules: [{ action: 'log_custom_field', expression: 'true', description: 'Log custom fields', action_parameters: fields }],
  }));
  const job = await cf.logpush.jobs.create({
    zone_id: zoneId,
    name: 'custom-fields.example',
    destination_conf: 's3://logs/http_requests/{DATE}?region=us-east-1',
    dataset: 'http_requests',
    logpull_options: `fields=${logpullFields.join(',')}&timestamps=rfc3339`,
  });
  return { created, updated, job: job! };
}

describe('the how-to sequences through the official client, on the Pro zone', () => {
  let server: TestServer;
  let cf: Cloudflare;

  beforeAll(async () => {
    server = await startServer();
    ({ cf } = officialClient(server));
  });

  afterAll(async () => {
    await server?.stop();
  });

  const wafStatus = () => unwrap(server.api.GET('/zones/{zone_id}/waf_migration/status', { params: { path: { zone_id: ids.proZone } } }));

  it('starts at paranoia level 2 (the migration set it)', async () => {
    expect((await wafStatus()).paranoia_level).toBe(2);
  });

  it('1. sets the OWASP paranoia level to PL3, keeping the other overrides', async () => {
    const before = await cf.rulesets.phases.get(MANAGED, { zone_id: ids.proZone });
    const ruleBefore = executeRuleOf(before.rules, ids.owasp);

    const result = await setParanoiaLevel(cf, ids.account, ids.proZone, 3);

    expect(Number(result.version)).toBe(Number(before.version) + 1);
    const rule = executeRuleOf(result.rules, ids.owasp);
    expect(rule.id).toBe(ruleBefore.id);
    expect(rule.action_parameters?.overrides?.categories).toEqual([{ category: 'paranoia-level-4', enabled: false }]);
    expect(rule.action_parameters?.overrides?.rules).toEqual(ruleBefore.action_parameters?.overrides?.rules);
    expect(await cf.rulesets.phases.get(MANAGED, { zone_id: ids.proZone })).toEqual(result);
    expect((await wafStatus()).paranoia_level).toBe(3);
  });

  it('1. sets it to PL1 and back to PL4', async () => {
    const pl1 = executeRuleOf((await setParanoiaLevel(cf, ids.account, ids.proZone, 1)).rules, ids.owasp);
    expect(pl1.action_parameters?.overrides?.categories?.map((c) => c.category)).toEqual(paranoiaTags.slice(1));
    expect((await wafStatus()).paranoia_level).toBe(1);

    const pl4 = executeRuleOf((await setParanoiaLevel(cf, ids.account, ids.proZone, 4)).rules, ids.owasp);
    expect(pl4.action_parameters?.overrides?.categories).toEqual([]);
    expect((await wafStatus()).paranoia_level).toBe(4);
  });

  it('2. sets the score threshold to Low (60) with action log on the last OWASP rule', async () => {
    const before = await cf.rulesets.phases.get(MANAGED, { zone_id: ids.proZone });
    const categoriesBefore = executeRuleOf(before.rules, ids.owasp).action_parameters?.overrides?.categories;

    const result = await setScoreThreshold(cf, ids.account, ids.proZone, ids.owasp, 60, 'log');

    expect(Number(result.version)).toBe(Number(before.version) + 1);
    const overrides = executeRuleOf(result.rules, ids.owasp).action_parameters?.overrides;
    expect(overrides?.rules).toEqual([{ id: ids.owaspLastRule, score_threshold: 60, action: 'log' }]);
    expect(overrides?.categories).toEqual(categoriesBefore);
    expect(await cf.rulesets.phases.get(MANAGED, { zone_id: ids.proZone })).toEqual(result);
  });

  it('2. refuses a threshold out of range, changing nothing', async () => {
    const before = await cf.rulesets.phases.get(MANAGED, { zone_id: ids.proZone });
    const refused = await refusal(setScoreThreshold(cf, ids.account, ids.proZone, ids.owasp, 1000, 'block'));
    expect(refused.status).toBe(400);
    expect(refused.name).toBe('BadRequestError');
    expect(await cf.rulesets.phases.get(MANAGED, { zone_id: ids.proZone })).toEqual(before);
  });

  const fields: CustomFields = {
    request_fields: [{ name: 'content-type' }, { name: 'x-forwarded-for' }],
    response_fields: [{ name: 'server' }],
    cookie_fields: [{ name: '__ga' }, { name: 'accountNumber' }],
  };
  const logpullFields = ['ClientIP', 'ClientRequestHost', 'EdgeResponseStatus', 'RequestHeaders', 'ResponseHeaders', 'Cookies'];

  it('3. configures custom fields in the existing ruleset and creates the log push job', async () => {
    const before = await cf.rulesets.phases.get(CUSTOM_FIELDS, { zone_id: ids.proZone });

    const { created, updated, job } = await configureCustomFields(cf, ids.proZone, fields, logpullFields);

    expect(created).toBe(false);
    expect(updated.id).toBe(before.id);
    expect(Number(updated.version)).toBe(Number(before.version) + 1);
    expect(updated.rules).toHaveLength(1);
    expect(updated.rules[0]).toMatchObject({ action: 'log_custom_field', expression: 'true', action_parameters: fields });
    expect(await cf.rulesets.phases.get(CUSTOM_FIELDS, { zone_id: ids.proZone })).toEqual(updated);

    const stored = await server.store.logpushJobs.list(ids.proZone);
    expect(stored.find((j) => j.id === job.id)).toMatchObject({
      dataset: 'http_requests',
      logpull_options: `fields=${logpullFields.join(',')}&timestamps=rfc3339`,
    });
  });

  it('3. creates the custom fields ruleset on a zone that has none (the Business zone)', async () => {
    const { created, updated, job } = await configureCustomFields(cf, ids.businessZone, fields, logpullFields);

    expect(created).toBe(true);
    expect(updated).toMatchObject({ kind: 'zone', phase: CUSTOM_FIELDS, version: '2' });
    expect(updated.rules[0]).toMatchObject({ action: 'log_custom_field', action_parameters: fields });
    expect(await cf.rulesets.phases.get(CUSTOM_FIELDS, { zone_id: ids.businessZone })).toEqual(updated);
    expect(await server.store.logpushJobs.get(ids.businessZone, job.id!)).not.toBeNull();
  });

  it('3. refuses upper-case header names, changing nothing', async () => {
    const before = await cf.rulesets.phases.get(CUSTOM_FIELDS, { zone_id: ids.proZone });
    const refused = await refusal(
      configureCustomFields(cf, ids.proZone, { ...fields, request_fields: [{ name: 'Content-Type' }] }, logpullFields),
    );
    expect(refused).toMatchObject({ status: 400, name: 'BadRequestError' });
    expect(await cf.rulesets.phases.get(CUSTOM_FIELDS, { zone_id: ids.proZone })).toEqual(before);
  });
});
