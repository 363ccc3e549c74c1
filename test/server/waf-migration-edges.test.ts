// The WAF migration's edges over HTTP: the limits at exactly 200 firewall rules and 4 KB of
// expression (bytes of UTF-8), every OWASP sensitivity and action mode in the config, paused
// bypass rules and inactive page rules, refused migrations that change nothing, validation mode
// kept, and irreversibility from every finished path. Zones the fixtures lack are seeded here.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureId } from '../../fixtures/generator/ids';
import { buildSeed } from '../../fixtures/generator/build';
import { unwrap } from '../../src/client';
import type { SeedZone } from '../../src/store';
import { apiFailure, ids, startServer, type TestServer } from './harness';
import { migrationCalls, owaspRuleOf } from './previous-waf-helpers';

type FirewallRule = SeedZone['waf']['firewall_rules'][number];
type PageRule = SeedZone['waf']['page_rules'][number];

const business = ids.businessZone;
let server: TestServer | undefined;
let seedDir: string | undefined;
afterEach(async () => {
  await server?.stop();
  if (seedDir) rmSync(seedDir, { recursive: true, force: true });
  server = seedDir = undefined;
});

/** A server over the fixtures, with the Business zone's previous WAF changed by `edit`. */
async function serverWith(edit?: (waf: SeedZone['waf']) => void): Promise<{ server: TestServer; calls: ReturnType<typeof migrationCalls> }> {
  let seed: string | undefined;
  if (edit) {
    const file = buildSeed();
    edit(file.zones.find((zone) => zone.id === business)!.waf);
    seedDir = mkdtempSync(path.join(os.tmpdir(), 'waf-edges-'));
    seed = path.join(seedDir, 'seed.json');
    writeFileSync(seed, JSON.stringify(file));
  }
  server = await startServer(seed ? { seed } : {});
  return { server, calls: migrationCalls(server) };
}

function blockRule(i: number, expression = `(ip.src eq 192.0.2.${(i % 250) + 1})`): FirewallRule {
  return { id: fixtureId(`edge-rule:${i}`), action: 'block', products: [], paused: false, priority: i + 1, description: `Rule ${i}`, expression };
}

/** An expression of exactly `bytes` bytes of UTF-8, mostly two-byte characters. */
function expressionOfBytes(bytes: number): string {
  const head = '(http.request.uri.path eq "/';
  const tail = '")';
  const room = bytes - Buffer.byteLength(head + tail);
  const text = 'é'.repeat(Math.floor(room / 2)) + 'a'.repeat(room % 2);
  const expression = head + text + tail;
  expect(Buffer.byteLength(expression, 'utf8')).toBe(bytes);
  return expression;
}

async function refusal(call: Promise<unknown>) {
  const error = await apiFailure(call);
  return { status: error.status, codes: error.errors.map((e) => e.code), message: error.errors[0]?.message ?? '' };
}

/** What a refused migration must leave as it was: the state and the entry point. */
async function snapshot(s: TestServer, calls: ReturnType<typeof migrationCalls>, zone_id: string) {
  const entryPoint = await calls.entryPoint(zone_id);
  return { status: await calls.status(zone_id), entryPoint: entryPoint.response.status, version: entryPoint.data?.result.version };
}

describe('the 200 firewall rules limit', () => {
  it('migrates a zone with exactly 200 firewall rules', async () => {
    const { calls } = await serverWith((waf) => {
      waf.firewall_rules = Array.from({ length: 200 }, (_, i) => blockRule(i));
    });
    await calls.migrate(business, '1');
    expect((await calls.status(business)).migration_state).toBe('finished');
  });

  it('refuses 201 (20303) and leaves the state and entry point unchanged', async () => {
    const { server: s, calls } = await serverWith((waf) => {
      waf.firewall_rules = Array.from({ length: 201 }, (_, i) => blockRule(i));
    });
    const before = await snapshot(s, calls, business);
    expect(await refusal(calls.migrate(business, 'pending'))).toMatchObject({ status: 400, codes: [20303], message: expect.stringContaining('201 firewall rules') });
    expect(await snapshot(s, calls, business)).toEqual(before);
    expect(before).toMatchObject({ status: { migration_state: 'start' }, entryPoint: 404 });
  });
});

describe('the 4 KB expression limit, counted in bytes of UTF-8', () => {
  it('migrates an expression of exactly 4096 bytes of multibyte text (far fewer characters)', async () => {
    const expression = expressionOfBytes(4096);
    expect(expression.length).toBeLessThan(2100);
    const { calls } = await serverWith((waf) => {
      waf.firewall_rules = [blockRule(0, expression)];
    });
    await calls.migrate(business, 'pending');
    expect((await calls.status(business)).migration_state).toBe('finished');
  });

  it('refuses 4097 bytes (20304), though the expression has only about 2,000 characters', async () => {
    const expression = expressionOfBytes(4097);
    const { server: s, calls } = await serverWith((waf) => {
      waf.firewall_rules = [blockRule(0), blockRule(1, expression)];
    });
    const before = await snapshot(s, calls, business);
    const answer = await refusal(calls.migrate(business, 'pending'));
    expect(answer).toMatchObject({ status: 400, codes: [20304] });
    expect(answer.message).toContain('4097 bytes');
    expect(answer.message).toContain(fixtureId('edge-rule:1'));
    expect(await snapshot(s, calls, business)).toEqual(before);
  });
});

describe('the config from the previous WAF', () => {
  it('maps every sensitivity and action mode of the OWASP package', async () => {
    const { server: s, calls } = await serverWith();
    const owasp = { zone_id: ids.enterpriseZone, package_id: ids.enterpriseOwaspPackage };
    const seen: Record<string, unknown> = {};
    for (const sensitivity of ['high', 'medium', 'low', 'off'] as const) {
      for (const action_mode of ['simulate', 'block', 'challenge'] as const) {
        await unwrap(s.api.PATCH('/zones/{zone_id}/firewall/waf/packages/{package_id}', { params: { path: owasp }, body: { sensitivity, action_mode } }));
        seen[`${sensitivity}/${action_mode}`] = owaspRuleOf(await calls.config(ids.enterpriseZone));
      }
    }
    const expected = (enabled: boolean, threshold: number) => ({
      simulate: { enabled, threshold, action: 'log' },
      block: { enabled, threshold, action: 'block' },
      challenge: { enabled, threshold, action: 'challenge' },
    });
    const table = { high: expected(true, 25), medium: expected(true, 40), low: expected(true, 60), off: expected(false, 40) };
    expect(seen).toEqual(
      Object.fromEntries(Object.entries(table).flatMap(([sensitivity, modes]) => Object.entries(modes).map(([mode, rule]) => [`${sensitivity}/${mode}`, rule]))),
    );
  });

  it('leaves out paused bypass rules, bypass rules of other products and inactive page rules', async () => {
    const bypass = (key: string, paused: boolean, products: string[]): FirewallRule => ({
      id: fixtureId(`edge-bypass:${key}`),
      action: 'bypass',
      products,
      paused,
      priority: 1,
      description: key,
      expression: `(http.request.uri.path eq "/${key}")`,
    });
    const page = (key: string, status: PageRule['status'], actions: PageRule['actions']): PageRule => ({
      id: fixtureId(`edge-page:${key}`),
      targets: [{ target: 'url', constraint: { operator: 'matches', value: `example.net/${key}/*` } }],
      actions,
      priority: 1,
      status,
      created_on: '2024-01-01T00:00:00.000000Z',
      modified_on: '2024-01-01T00:00:00.000000Z',
    });
    const { calls } = await serverWith((waf) => {
      waf.firewall_rules = [bypass('active', false, ['waf']), bypass('paused', true, ['waf']), bypass('rate-limit', false, ['rateLimit'])];
      waf.page_rules = [
        page('off', 'active', [{ id: 'waf', value: 'off' }]),
        page('off-disabled', 'disabled', [{ id: 'waf', value: 'off' }]),
        page('security', 'active', [{ id: 'disable_security' }]),
        page('security-disabled', 'disabled', [{ id: 'disable_security' }]),
        page('on', 'active', [{ id: 'waf', value: 'on' }]),
      ].map((rule, i) => ({ ...rule, priority: i + 1 }));
    });
    const skips = (await calls.config(business)).rules.filter((r) => r.action === 'skip').map((r) => r.expression);
    expect(skips).toEqual([
      '(http.request.uri.path eq "/active")',
      'http.request.full_uri wildcard "http*://example.net/off/*"',
      'http.request.full_uri wildcard "http*://example.net/security/*"',
    ]);
  });
});

describe('refused migrations change nothing', () => {
  it('leaves an incompatible zone in start without an entry point', async () => {
    const { server: s, calls } = await serverWith();
    const before = await snapshot(s, calls, ids.uriOverrideZone);
    for (const mode of ['pending', '1'] as const) {
      expect((await refusal(calls.migrate(ids.uriOverrideZone, mode))).codes, mode).toEqual([20301]);
    }
    // A Business zone: validation mode is refused before compatibility is looked at.
    for (const mode of ['validation', '2'] as const) {
      expect((await refusal(calls.migrate(ids.uriOverrideZone, mode))).codes, mode).toEqual([20302]);
    }
    expect(await snapshot(s, calls, ids.uriOverrideZone)).toEqual(before);
    expect(before.entryPoint).toBe(404);
  });

  it('refuses validation mode (20301) to an Enterprise zone given a URI-based override', async () => {
    const { server: s, calls } = await serverWith();
    const zone = ids.enterpriseZone;
    await unwrap(s.api.POST('/zones/{zone_id}/firewall/waf/overrides', { params: { path: { zone_id: zone } }, body: { urls: ['example.com/x/*'], rules: { '100015': 'disable' } } }));
    const before = await snapshot(s, calls, zone);
    for (const mode of ['validation', '2', 'pending'] as const) {
      expect((await refusal(calls.migrate(zone, mode))).codes, mode).toEqual([20301]);
    }
    expect(await snapshot(s, calls, zone)).toEqual(before);
  });

  it('refuses validation mode on a Business zone (20302) and keeps it in start', async () => {
    const { server: s, calls } = await serverWith();
    const before = await snapshot(s, calls, business);
    expect((await refusal(calls.migrate(business, 'validation'))).codes).toEqual([20302]);
    expect((await refusal(calls.migrate(business, '2'))).codes).toEqual([20302]);
    expect(await snapshot(s, calls, business)).toEqual(before);
  });
});

describe('validation mode', () => {
  it('stays in validation while new configurations are sent with waf_migration=validation', async () => {
    const { server: s, calls } = await serverWith();
    const zone = ids.enterpriseZone;
    const first = await calls.migrate(zone, 'validation');
    const config = await calls.config(zone);
    const withoutManaged = config.rules.filter((r) => r.action !== 'execute' || (r.action_parameters as { id?: string }).id !== ids.managed);
    const second = await calls.migrate(zone, '2', withoutManaged);
    expect(Number(second.version)).toBe(Number(first.version) + 1);
    expect(await calls.status(zone)).toMatchObject({ migration_state: 'validation', previous_managed_rules_enabled: true, new_managed_rules_enabled: true, validation_mode: true });
    expect((await unwrap(calls.entryPoint(zone))).rules).toHaveLength(withoutManaged.length);
    expect((await s.api.GET('/zones/{zone_id}/firewall/waf/packages', { params: { path: { zone_id: zone } } })).response.status).toBe(200);
  });
});

describe('irreversibility', () => {
  const again = ['pending', '1', 'validation', '2'] as const;

  async function expectFinishedForGood(s: TestServer, calls: ReturnType<typeof migrationCalls>, zone_id: string) {
    const before = await snapshot(s, calls, zone_id);
    expect(before.status.migration_state).toBe('finished');
    for (const mode of again) {
      expect((await refusal(calls.migrate(zone_id, mode, [{ action: 'execute', expression: 'true', action_parameters: { id: ids.managed } }]))).codes, mode).toEqual([20305]);
    }
    expect(await snapshot(s, calls, zone_id)).toEqual(before);
  }

  it('keeps a Business zone migrated with waf_migration=1', async () => {
    const { server: s, calls } = await serverWith();
    await calls.migrate(business, '1');
    await expectFinishedForGood(s, calls, business);
  });

  it('keeps an Enterprise zone migrated through validation then pending', async () => {
    const { server: s, calls } = await serverWith();
    await calls.migrate(ids.enterpriseZone, 'validation');
    await calls.migrate(ids.enterpriseZone, 'pending');
    await expectFinishedForGood(s, calls, ids.enterpriseZone);
  });

  it('keeps the Pro zone of the fixtures, migrated before, as it is', async () => {
    const { server: s, calls } = await serverWith();
    await expectFinishedForGood(s, calls, ids.proZone);
  });
});
