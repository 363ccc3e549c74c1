// The official client library (npm `cloudflare`), unchanged, driving every family of calls
// around the specification's table end to end: rulesets read and deleted, rules added, moved
// and deleted, ruleset and entry point versions, account managed ruleset versions, log push
// jobs listed, read, updated and deleted, the zone list with its filters and paging, and
// how-to 3 completed idempotently with `logpush.jobs.update`. Retries are off.
import type Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, startServer, type TestServer } from './harness';
import { all, officialClient, refusal, type SentRequest } from './official-client';

const CUSTOM = 'http_request_firewall_custom';
const MANAGED = 'http_request_firewall_managed';
const CUSTOM_FIELDS = 'http_log_custom_fields';
const zone_id = ids.businessZone;

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

interface RulesetShape {
  id: string;
  version: string;
  rules: { id?: string; description?: string; version?: string }[];
}

/** The library types the answers of rule writes as `Ruleset | unknown`: read them as rulesets. */
async function asRuleset(call: Promise<unknown>): Promise<RulesetShape> {
  const value = (await call) as RulesetShape;
  expect(Array.isArray(value.rules)).toBe(true);
  return value;
}
const descriptions = (ruleset: RulesetShape) => ruleset.rules.map((rule) => rule.description);
const block = (path: string) => ({ action: 'block' as const, expression: `http.request.uri.path eq "${path}"`, description: path });
const lastSent = () => sent.at(-1)!;

describe('rulesets, rules and versions through the official client', () => {
  it('gets a zone ruleset, adds rules at positions, moves and deletes one, and deletes the ruleset', async () => {
    const created = await asRuleset(cf.rulesets.create({ zone_id, name: 'sdk', kind: 'custom', phase: CUSTOM, rules: [block('/a'), block('/b')] }));
    const fetched = await cf.rulesets.get(created.id, { zone_id });
    expect(lastSent().method).toBe('GET');
    expect(fetched.id).toBe(created.id);
    expect(fetched.rules.map((rule) => rule.description)).toEqual(['/a', '/b']);

    const [a, b] = created.rules.map((rule) => rule.id!) as [string, string];
    const first = await asRuleset(cf.rulesets.rules.create(created.id, { zone_id, ...block('/first'), position: { before: '' } }));
    expect(lastSent().url.pathname).toBe(`/client/v4/zones/${zone_id}/rulesets/${created.id}/rules`);
    expect(descriptions(first)).toEqual(['/first', '/a', '/b']);
    const afterA = await asRuleset(cf.rulesets.rules.create(created.id, { zone_id, ...block('/after-a'), position: { after: a } }));
    expect(descriptions(afterA)).toEqual(['/first', '/a', '/after-a', '/b']);
    const indexed = await asRuleset(cf.rulesets.rules.create(created.id, { zone_id, ...block('/second'), position: { index: 2 } }));
    expect(descriptions(indexed)).toEqual(['/first', '/second', '/a', '/after-a', '/b']);
    expect(indexed.version).toBe('4');

    const moved = await asRuleset(cf.rulesets.rules.edit(b, { ruleset_id: created.id, zone_id, action: 'block', position: { index: 1 } }));
    expect(descriptions(moved)).toEqual(['/b', '/first', '/second', '/a', '/after-a']);
    const removed = await asRuleset(cf.rulesets.rules.delete(a, { ruleset_id: created.id, zone_id }));
    expect(descriptions(removed)).toEqual(['/b', '/first', '/second', '/after-a']);
    expect(removed.version).toBe('6');

    const foreign = await refusal(cf.rulesets.rules.create(created.id, { zone_id, ...block('/x'), position: { before: ids.owaspLastRule } }));
    expect(foreign).toMatchObject({ status: 400, codes: [10021], name: 'BadRequestError' });

    await cf.rulesets.delete(created.id, { zone_id });
    expect(lastSent().method).toBe('DELETE');
    expect(await refusal(cf.rulesets.get(created.id, { zone_id }))).toMatchObject({ status: 404, name: 'NotFoundError' });
  });

  it('lists, gets and deletes versions of a zone ruleset', async () => {
    const created = await asRuleset(cf.rulesets.create({ zone_id, name: 'versioned', kind: 'custom', phase: CUSTOM, rules: [block('/v')] }));
    await cf.rulesets.rules.create(created.id, { zone_id, ...block('/w') });
    const versions = await all(cf.rulesets.versions.list(created.id, { zone_id }));
    expect(versions.map((v) => v.version)).toEqual(['1', '2']);
    const one = await cf.rulesets.versions.get('1', { ruleset_id: created.id, zone_id });
    expect(one.rules.map((rule) => rule.description)).toEqual(['/v']);
    expect(await refusal(cf.rulesets.versions.delete('2', { ruleset_id: created.id, zone_id }))).toMatchObject({ status: 400, codes: [10021] });
    await cf.rulesets.versions.delete('1', { ruleset_id: created.id, zone_id });
    expect((await all(cf.rulesets.versions.list(created.id, { zone_id }))).map((v) => v.version)).toEqual(['2']);
  });

  it('lists and gets the versions of an entry point by phase, and of an account managed ruleset', async () => {
    const phaseVersions = await all(cf.rulesets.phases.versions.list(MANAGED, { zone_id: ids.proZone }));
    expect(phaseVersions.map((v) => v.version)).toEqual(['1', '2']);
    const first = await cf.rulesets.phases.versions.get('1', { ruleset_phase: MANAGED, zone_id: ids.proZone });
    expect(first.version).toBe('1');
    const owaspVersions = await all(cf.rulesets.versions.list(ids.owasp, { account_id: ids.account }));
    expect(owaspVersions.map((v) => v.version)).toEqual(['1', '2', '3']);
    const owaspOne = await cf.rulesets.versions.get('1', { ruleset_id: ids.owasp, account_id: ids.account });
    expect(owaspOne.kind).toBe('managed');
    expect(await refusal(cf.rulesets.delete(ids.owasp, { account_id: ids.account }))).toMatchObject({ status: 400, codes: [20200] });
  });
});

describe('log push jobs and zones through the official client', () => {
  it('lists, gets, updates in part and deletes a job', async () => {
    const job = (await cf.logpush.jobs.create({ zone_id, destination_conf: 's3://logs/sdk?region=us-east-1', dataset: 'http_requests' }))!;
    expect((await all(cf.logpush.jobs.list({ zone_id }))).map((j) => j!.id)).toContain(job.id);
    expect(await cf.logpush.jobs.get(job.id!, { zone_id })).toEqual(job);
    const updated = await cf.logpush.jobs.update(job.id!, { zone_id, enabled: true, logpull_options: 'fields=ClientIP&timestamps=rfc3339' });
    expect(lastSent().method).toBe('PUT');
    expect(updated).toEqual({ ...job, enabled: true, logpull_options: 'fields=ClientIP&timestamps=rfc3339' });
    const bad = await refusal(cf.logpush.jobs.update(job.id!, { zone_id, logpull_options: 'fields=NoSuchField' }));
    expect(bad).toMatchObject({ status: 400, codes: [10021] });
    expect(await cf.logpush.jobs.delete(job.id!, { zone_id })).toEqual({ id: job.id });
    expect(await refusal(cf.logpush.jobs.get(job.id!, { zone_id }))).toMatchObject({ status: 404 });
  });

  it('lists zones with filters, and pages through all of them', async () => {
    const filtered = await all(cf.zones.list({ name: 'contains:example', account: { id: ids.account }, order: 'name', direction: 'desc', per_page: 5 }));
    expect(filtered.map((z) => z.name)).toEqual(['example.org', 'example.net', 'example.com', 'example-shop.com', 'example-blog.com', 'example-api.com']);
    expect(lastSent().url.searchParams.get('account.id')).toBe(ids.account);
    const everything = await all(cf.zones.list({ per_page: 5 }));
    expect(everything).toHaveLength(7);
    expect(new Set(everything.map((z) => z.id)).size).toBe(7);
    expect((await all(cf.zones.list({ account: { name: 'Sandbox Labs' } }))).map((z) => z.name)).toEqual(['sandbox-labs.dev']);
  });
});

/**
 * How-to 3, as a script that can run again and again: the custom fields ruleset (created when
 * absent) with its one rule, then the log push job of dataset http_requests updated when it
 * exists, created otherwise.
 */
async function configureCustomFields(zoneId: string, requestFields: string[], logpullFields: string[]) {
  const rulesets = await all(cf.rulesets.list({ zone_id: zoneId }));
  const existing = rulesets.find((r) => r.kind === 'zone' && r.phase === CUSTOM_FIELDS);
  const target = existing ?? (await asRuleset(cf.rulesets.create({ zone_id: zoneId, name: 'Custom log fields', kind: 'zone', phase: CUSTOM_FIELDS })));
  const ruleset = await asRuleset(
    cf.rulesets.update(target.id, {
      zone_id: zoneId,
      rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: requestFields.map((name) => ({ name })) } }],
    }),
  );
  const logpull_options = `fields=${logpullFields.join(',')}&timestamps=rfc3339`;
  const jobs = await all(cf.logpush.jobs.list({ zone_id: zoneId }));
  const job = jobs.find((j) => j?.dataset === 'http_requests');
  const pushed = job
    ? await cf.logpush.jobs.update(job.id!, { zone_id: zoneId, logpull_options })
    : await cf.logpush.jobs.create({ zone_id: zoneId, dataset: 'http_requests', destination_conf: 's3://logs/http_requests/{DATE}?region=us-east-1', logpull_options });
  return { ruleset, job: pushed!, updatedJob: job !== undefined };
}

describe('how-to 3 completed with logpush.jobs.update', () => {
  it('updates the existing job of the Pro zone to carry the custom fields, and changes nothing new when run again', async () => {
    const fields = ['ClientIP', 'ClientRequestHost', 'RequestHeaders', 'Cookies'];
    const before = await all(cf.logpush.jobs.list({ zone_id: ids.proZone }));
    const first = await configureCustomFields(ids.proZone, ['x-request-id'], fields);
    expect(first.updatedJob).toBe(true);
    expect(first.job.logpull_options).toBe(`fields=${fields.join(',')}&timestamps=rfc3339`);
    const again = await configureCustomFields(ids.proZone, ['x-request-id'], fields);
    expect(again.job).toEqual(first.job);
    const after = await all(cf.logpush.jobs.list({ zone_id: ids.proZone }));
    expect(after.map((j) => j!.id)).toEqual(before.map((j) => j!.id));
    expect(await server.store.logpushJobs.get(ids.proZone, first.job.id!)).toMatchObject({ logpull_options: first.job.logpull_options });
  });

  it('creates the job on a zone that has none, then updates it on the next run', async () => {
    const zone = ids.uriOverrideZone;
    const first = await configureCustomFields(zone, ['user-agent'], ['ClientIP', 'RequestHeaders']);
    expect(first.updatedJob).toBe(false);
    const second = await configureCustomFields(zone, ['user-agent'], ['ClientIP', 'RequestHeaders', 'EdgeResponseStatus']);
    expect(second.updatedJob).toBe(true);
    expect(second.job.id).toBe(first.job.id);
    expect((await all(cf.logpush.jobs.list({ zone_id: zone }))).map((j) => j!.id)).toEqual([first.job.id]);
  });
});
