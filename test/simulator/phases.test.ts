// Phases and rulesets in order: terminating actions end the request, log does not, skip skips what
// it names, account entry points run before the zone's, managed phases wait for the new WAF, and
// the response phase sees the described response.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { simulate } from '../../src/simulator';
import type { RuleInput, Store } from '../../src/store';
import { OWASP_RULESET_ID, PRO, ZONE_IDS, deploy, deployOwasp, fixture, openStore, owaspRuleId, simulateFixture } from './helpers';

const CUSTOM = 'http_request_firewall_custom';
const MANAGED = 'http_request_firewall_managed';
const RESPONSE = 'http_response_firewall_managed';
const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';

let store: Store;
beforeEach(async () => {
  store = await openStore();
});
afterEach(async () => {
  await store.close();
});

function rule(action: string, expression: string, description: string, extra: Partial<RuleInput> = {}): RuleInput {
  return { action, expression, description, ...extra };
}

function statuses(result: Awaited<ReturnType<typeof simulate>>): Record<string, string> {
  return Object.fromEntries(result.phases.map((phase) => [phase.phase, phase.status]));
}

describe('terminating actions', () => {
  it('a block in the custom phase ends the request: later rules and phases are not reached, earlier log rules stay', async () => {
    await deploy(store, CUSTOM, [
      rule('log', 'true', 'Log everything'),
      rule('block', 'http.request.uri.path eq "/download"', 'No downloads'),
      rule('log', 'true', 'Log again'),
    ]);
    await deployOwasp(store, { level: 1, threshold: 25 });
    const result = await simulateFixture(store, 'path-traversal');
    expect(result.phases[0]!.rulesets[0]!.rules.map((r) => r.outcome)).toEqual(['matched', 'matched', 'not_reached']);
    expect(statuses(result)).toEqual({ [CUSTOM]: 'evaluated', [MANAGED]: 'not_reached', [RESPONSE]: 'not_reached' });
    expect(result.outcome).toMatchObject({ action: 'block', status: 403, rule: { description: 'No downloads', phase: CUSTOM } });
    expect(result.matched_rules.map((r) => [r.description, r.action])).toEqual([
      ['Log everything', 'log'],
      ['No downloads', 'block'],
    ]);
    expect(result.owasp).toBeNull();
  });

  it('a block rule with a custom response answers its status', async () => {
    await deploy(store, CUSTOM, [
      rule('block', 'true', 'Rate limited', {
        action_parameters: { response: { status_code: 429, content: '{"error":"slow down"}', content_type: 'application/json' } },
      }),
    ]);
    expect((await simulateFixture(store, 'benign-browser')).outcome).toMatchObject({ action: 'block', status: 429 });
  });

  it.each(['managed_challenge', 'js_challenge', 'challenge'])('%s ends the request with 403 (a simulated client solves nothing)', async (action) => {
    await deploy(store, CUSTOM, [rule(action, 'http.request.uri.path eq "/products"', 'Challenge the catalogue')]);
    const result = await simulateFixture(store, 'benign-browser');
    expect(result.outcome).toMatchObject({ action, status: 403 });
    expect(statuses(result)[MANAGED]).toBe('not_reached');
  });

  it('with no terminating action the status is the described response, or unknown', async () => {
    await deploy(store, CUSTOM, [rule('log', 'true', 'Log everything')]);
    const benign = fixture('benign-browser');
    expect((await simulate(store, PRO, benign)).outcome).toEqual({ action: null, rule: null, status: null });
    expect((await simulate(store, PRO, { ...benign, response: { status: 304 } })).outcome).toEqual({ action: null, rule: null, status: 304 });
  });
});

describe('skip', () => {
  it('skips later phases: the office network bypasses the managed rules', async () => {
    await deploy(store, CUSTOM, [
      rule('skip', 'ip.src in {198.51.100.0/24}', 'Office skips the WAF', { action_parameters: { phases: [MANAGED] } }),
    ]);
    await deployOwasp(store, { level: 1, threshold: 25 });
    const attack = fixture('path-traversal');
    const fromOffice = await simulate(store, PRO, { ...attack, client_ip: '198.51.100.23' });
    expect(fromOffice.phases[1]).toMatchObject({ phase: MANAGED, status: 'skipped', rulesets: [] });
    expect(fromOffice.phases[1]!.note).toContain('Office skips the WAF');
    expect(fromOffice.outcome.action).toBeNull();
    expect(fromOffice.matched_rules.map((r) => r.action)).toEqual(['skip']);
    const fromElsewhere = await simulate(store, PRO, attack);
    expect(statuses(fromElsewhere)[MANAGED]).toBe('evaluated');
    expect(fromElsewhere.outcome.action).toBe('block');
  });

  it('skips the rest of the current ruleset', async () => {
    await deploy(store, CUSTOM, [
      rule('skip', 'starts_with(http.request.uri.path, "/api/")', 'API traffic is checked elsewhere', { action_parameters: { ruleset: 'current' } }),
      rule('block', 'ip.src.country eq "XX"', 'Block country XX'),
    ]);
    const request = { ...fixture('benign-browser'), overrides: { 'ip.src.country': 'XX' } };
    const api = await simulate(store, PRO, { ...request, url: 'https://example.org/api/products' });
    expect(api.phases[0]!.rulesets[0]!.rules.map((r) => r.outcome)).toEqual(['matched', 'skipped']);
    expect(api.outcome.action).toBeNull();
    const web = await simulate(store, PRO, request);
    expect(web.phases[0]!.rulesets[0]!.rules.map((r) => r.outcome)).toEqual(['not_matched', 'matched']);
    expect(web.outcome.action).toBe('block');
  });

  it('skips named rules of the managed ruleset executed later', async () => {
    const traversal = await Promise.all(['930100', '930110', '930120'].map((ref) => owaspRuleId(store, ref)));
    await deploy(store, CUSTOM, [
      rule('skip', 'http.request.uri.path eq "/download"', 'Downloads take file paths', { action_parameters: { rules: { [OWASP_RULESET_ID]: traversal } } }),
    ]);
    await deployOwasp(store, { level: 1, threshold: 25 });
    const result = await simulateFixture(store, 'path-traversal');
    const owaspRules = result.phases[1]!.rulesets[0]!.rules[0]!.execution!.ruleset!.rules;
    expect(owaspRules.filter((r) => r.outcome === 'skipped').map((r) => r.ref)).toEqual(['930100', '930110', '930120']);
    expect(result.owasp?.score.total).toBe(0);
    expect(result.outcome.action).toBeNull();
  });
});

describe('entry points and phases', () => {
  it('runs the account entry point of a phase before the zone one', async () => {
    await store.rulesets.putEntryPoint({ account_id: ACCOUNT }, CUSTOM, {
      rules: [rule('log', 'http.host eq "example.org"', 'Account-wide watch')],
    });
    await deploy(store, CUSTOM, [rule('log', 'true', 'Zone watch')]);
    const result = await simulateFixture(store, 'benign-browser');
    expect(result.phases[0]!.rulesets.map((r) => r.kind)).toEqual(['root', 'zone']);
    expect(result.matched_rules.map((r) => r.description)).toEqual(['Account-wide watch', 'Zone watch']);
  });

  it('leaves managed phases inactive on a zone still on the previous WAF, and runs its custom rules', async () => {
    const admin = { ...fixture('benign-browser'), url: 'https://example.com/admin/users' };
    const outside = await simulate(store, ZONE_IDS.enterprise, { ...admin, client_ip: '192.0.2.1' });
    expect(statuses(outside)).toEqual({ [CUSTOM]: 'evaluated', [MANAGED]: 'not_reached', [RESPONSE]: 'not_reached' });
    expect(outside.outcome).toMatchObject({ action: 'block', rule: { description: 'Admin area only from the office' } });
    const office = await simulate(store, ZONE_IDS.enterprise, { ...admin, client_ip: '198.51.100.5' });
    expect(statuses(office)).toEqual({ [CUSTOM]: 'evaluated', [MANAGED]: 'inactive', [RESPONSE]: 'no_response' });
    expect(office.outcome.action).toBeNull();
  });

  it('without a client IP, a negated condition on ip.src is true (and says so)', async () => {
    const anonymous: Record<string, unknown> = { ...fixture('benign-browser'), url: 'https://example.com/admin/' };
    delete anonymous.client_ip;
    const result = await simulate(store, ZONE_IDS.enterprise, anonymous);
    expect(result.outcome.action).toBe('block');
    expect(result.warnings).toContain('no client_ip: ip.src is missing, so every condition on it is false (and a negated one true)');
    expect(result.context['ip.src']).toBeUndefined();
  });

  it('answers no_entry_point for a phase without rules', async () => {
    const result = await simulateFixture(store, 'benign-browser', ZONE_IDS.business);
    expect(result.phases.map((p) => p.status)).toEqual(['no_entry_point', 'inactive', 'no_response']);
  });
});

describe('the response phase', () => {
  beforeEach(async () => {
    await deploy(store, RESPONSE, [rule('log', 'http.response.code ge 500', 'Watch origin errors')]);
    // Request phases never see response fields, even when a response is described.
    await deploy(store, CUSTOM, [rule('block', 'http.response.code eq 503', 'Cannot match in a request phase')]);
  });

  it('runs only when a response is described, and sees it', async () => {
    const request = fixture('benign-browser');
    expect(statuses(await simulate(store, PRO, request))[RESPONSE]).toBe('no_response');
    const result = await simulate(store, PRO, { ...request, response: { status: 503, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Retry-After': '30' } } });
    expect(result.phases[0]!.rulesets[0]!.rules[0]!.outcome).toBe('not_matched');
    expect(result.phases[2]!.rulesets[0]!.rules[0]!.outcome).toBe('matched');
    expect(result.outcome).toEqual({ action: null, rule: null, status: 503 });
    expect(result.context).toMatchObject({
      'http.response.code': 503,
      'http.response.headers': { 'content-type': ['text/html; charset=utf-8'], 'retry-after': ['30'] },
      'http.response.headers.names': ['Content-Type', 'Retry-After'],
      'http.response.content_type.media_type': 'text/html',
    });
  });
});

describe('rules the simulation cannot run as written', () => {
  it('an expression that does not parse is reported and does not match', async () => {
    await deploy(store, CUSTOM, [rule('block', 'http.host eq "a" and', 'Broken'), rule('log', 'true', 'Still runs')]);
    const result = await simulateFixture(store, 'benign-browser');
    const [broken, next] = result.phases[0]!.rulesets[0]!.rules;
    expect(broken).toMatchObject({ outcome: 'invalid_expression', note: expect.stringContaining('Filter parsing error') });
    expect(next?.outcome).toBe('matched');
    expect(result.outcome.action).toBeNull();
  });

  it('an action the simulation does not know is treated as log, with a warning', async () => {
    await deploy(store, CUSTOM, [rule('rewrite', 'true', 'Rewrite the path')]);
    const result = await simulateFixture(store, 'benign-browser');
    expect(result.outcome.action).toBeNull();
    expect(result.warnings.some((w) => w.includes('action rewrite is not carried out here; it was treated as log'))).toBe(true);
  });
});
