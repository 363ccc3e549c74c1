// The platform's official client driving each family of the previous WAF's API (packages, groups,
// rules, URI-based overrides) against this service, and meeting the 410 of a migrated zone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client';
import { ids, startServer, type TestServer } from './harness';
import { all, officialClient, refusal } from './official-client';
import { migrationCalls } from './previous-waf-helpers';

let server: TestServer;
let cf: ReturnType<typeof officialClient>['cf'];
let sent: ReturnType<typeof officialClient>['sent'];
beforeAll(async () => {
  server = await startServer();
  ({ cf, sent } = officialClient(server));
});
afterAll(async () => {
  await server.stop();
});

const zone_id = ids.enterpriseZone;
const package_id = ids.enterpriseOwaspPackage;

describe('firewall.waf.packages', () => {
  it('lists every package across pages and gets one', async () => {
    const listed = (await all(cf.firewall.waf.packages.list({ zone_id, per_page: 1 }))) as { id: string; detection_mode: string }[];
    expect(listed.map((p) => [p.id, p.detection_mode])).toEqual([
      [ids.enterpriseOwaspPackage, 'anomaly'],
      [ids.enterpriseManagedPackage, 'traditional'],
    ]);
    expect(await cf.firewall.waf.packages.get(package_id, { zone_id })).toMatchObject({ id: package_id, sensitivity: 'medium', action_mode: 'block' });
    const filtered = (await all(cf.firewall.waf.packages.list({ zone_id, name: 'OWASP', order: 'name', direction: 'desc', match: 'all' }))) as { id: string }[];
    expect(filtered.map((p) => p.id)).toEqual([package_id]);
    expect(sent.at(-1)?.url.searchParams.get('direction')).toBe('desc');
  });
});

describe('firewall.waf.packages.groups', () => {
  it('lists, edits and gets a group', async () => {
    const groups = await all(cf.firewall.waf.packages.groups.list(package_id, { zone_id }));
    expect(groups.map((g) => g.name)).toEqual(['OWASP Protocol Violations', 'OWASP SQL Injection Attacks', 'OWASP XSS Attacks', 'OWASP Bad Robots']);
    expect(await cf.firewall.waf.packages.groups.edit(ids.owaspXssGroup, { zone_id, package_id, mode: 'off' })).toMatchObject({ id: ids.owaspXssGroup, mode: 'off' });
    expect(await cf.firewall.waf.packages.groups.get(ids.owaspXssGroup, { zone_id, package_id })).toMatchObject({ mode: 'off', rules_count: 2 });
    expect(sent.at(-2)?.method).toBe('PATCH');
  });

  it('meets the refusal of a mode a group does not have', async () => {
    const answer = await refusal(cf.firewall.waf.packages.groups.edit(ids.owaspXssGroup, { zone_id, package_id, mode: 'disable' as 'off' }));
    expect(answer).toMatchObject({ status: 400, codes: [10021], name: 'BadRequestError' });
  });
});

describe('firewall.waf.packages.rules', () => {
  it('lists, edits and gets a rule', async () => {
    const rules = (await all(cf.firewall.waf.packages.rules.list(ids.enterpriseManagedPackage, { zone_id, per_page: 2 }))) as { id: string }[];
    expect(rules.map((r) => r.id)).toEqual(['100015', '100016', '100004', '100005', '100000']);
    const edited = await cf.firewall.waf.packages.rules.edit('100016', { zone_id, package_id: ids.enterpriseManagedPackage, mode: 'block' });
    expect(edited).toMatchObject({ id: '100016', mode: 'block', default_mode: 'challenge' });
    expect(await cf.firewall.waf.packages.rules.get('100016', { zone_id, package_id: ids.enterpriseManagedPackage })).toMatchObject({ mode: 'block' });
  });

  it('meets the refusal of a mode outside allowed_modes, and of an unknown rule', async () => {
    expect(await refusal(cf.firewall.waf.packages.rules.edit('960015', { zone_id, package_id, mode: 'challenge' }))).toMatchObject({ status: 400, codes: [10021] });
    expect(await refusal(cf.firewall.waf.packages.rules.get('999999', { zone_id, package_id }))).toMatchObject({ status: 404, name: 'NotFoundError' });
  });
});

describe('firewall.waf.overrides', () => {
  const overrides = () => unwrap(server.api.GET('/zones/{zone_id}/firewall/waf/overrides', { params: { path: { zone_id: ids.uriOverrideZone } } }));

  it('creates, updates, lists, gets and deletes overrides (this client version discards the answers: read them back)', async () => {
    const shop = ids.uriOverrideZone;
    // The client types create with `urls` only; the service needs rules or groups too, so they are sent as extra fields.
    await cf.firewall.waf.overrides.create({ zone_id: shop, urls: ['example-shop.com/returns/*'], rules: { '100015': 'disable' } } as never);
    const created = (await overrides()).find((o) => o.urls[0] === 'example-shop.com/returns/*');
    expect(created).toMatchObject({ rules: { '100015': 'disable' }, priority: 1, paused: false });
    await cf.firewall.waf.overrides.update(created!.id, {
      zone_id: shop,
      id: created!.id,
      urls: ['example-shop.com/returns/*'],
      rules: { '100015': 'simulate' },
      rewrite_action: { block: 'challenge' },
    });
    expect((await overrides()).find((o) => o.id === created!.id)).toMatchObject({ rules: { '100015': 'simulate' }, rewrite_action: { block: 'challenge' } });
    await cf.firewall.waf.overrides.list({ zone_id: shop, page: 1, per_page: 5 });
    await cf.firewall.waf.overrides.get(created!.id, { zone_id: shop });
    for (const { id } of await overrides()) await cf.firewall.waf.overrides.delete(id, { zone_id: shop });
    expect(await overrides()).toEqual([]);
    expect(await migrationCalls(server).check(shop)).toEqual({ compatible: true, migration_state: 'start' });
  });

  it('meets the refusal of an override without urls', async () => {
    expect(await refusal(cf.firewall.waf.overrides.create({ zone_id, rules: { '100015': 'disable' } } as never))).toMatchObject({ status: 400, codes: [10021] });
  });
});

describe('after the migration', () => {
  it('meets 410 (20307) in every family on the migrated Pro zone', async () => {
    const pro = ids.proZone;
    const other = 'f'.repeat(32);
    const answers = [
      await refusal(cf.firewall.waf.packages.get(other, { zone_id: pro })),
      await refusal(cf.firewall.waf.packages.groups.get(other, { zone_id: pro, package_id: other })),
      await refusal(cf.firewall.waf.packages.rules.edit('100015', { zone_id: pro, package_id: other, mode: 'block' })),
      await refusal(cf.firewall.waf.overrides.delete(other, { zone_id: pro })),
    ];
    expect(answers.map((a) => [a.status, a.codes])).toEqual(Array(4).fill([410, [20307]]));
  });
});
