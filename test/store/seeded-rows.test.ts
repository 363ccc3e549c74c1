// Zones, accounts and platform-managed rulesets are read from the database once per store; an id
// not found is asked again (another process may seed the database later), and what is kept is
// frozen, so no caller can change it for the next one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type Store } from '../../src/store';
import { MAIN_ACCOUNT_ID as ACCOUNT_ID, OWASP_RULESET_ID, ZONE_IDS } from './contract/fixtures';

const opened: Store[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function open(dataDir: string, seed?: false): Promise<Store> {
  const store = await openSqliteStore({ dataDir, ...(seed === false ? { seed } : {}) });
  opened.push(store);
  return store;
}

describe('rows only seeding writes', () => {
  it('asks again for an id not found, and finds what another process seeded meanwhile', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'seeded-rows-'));
    dirs.push(dataDir);
    const early = await open(dataDir, false);
    expect(await early.zones.get(ZONE_IDS.pro)).toBeNull();
    expect(await early.accounts.get(ACCOUNT_ID)).toBeNull();
    expect(await early.rulesets.get({ account_id: ACCOUNT_ID }, OWASP_RULESET_ID)).toBeNull();
    // A second opener finds the database empty and loads the fixtures.
    await open(dataDir);
    expect((await early.zones.get(ZONE_IDS.pro))?.id).toBe(ZONE_IDS.pro);
    expect((await early.accounts.get(ACCOUNT_ID))?.id).toBe(ACCOUNT_ID);
    expect((await early.rulesets.get({ account_id: ACCOUNT_ID }, OWASP_RULESET_ID))?.kind).toBe('managed');
  });

  it('answers the same frozen zone, account and managed ruleset every time', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'seeded-rows-'));
    dirs.push(dataDir);
    const store = await open(dataDir);
    const zone = (await store.zones.get(ZONE_IDS.pro))!;
    expect(await store.zones.get(ZONE_IDS.pro)).toBe(zone);
    expect(Object.isFrozen(zone.plan)).toBe(true);
    expect(() => {
      (zone as { name: string }).name = 'changed';
    }).toThrow(TypeError);
    const account = (await store.accounts.get(ACCOUNT_ID))!;
    expect(await store.accounts.get(ACCOUNT_ID)).toBe(account);
    const owasp = (await store.rulesets.get({ account_id: ACCOUNT_ID }, OWASP_RULESET_ID))!;
    expect(await store.rulesets.get({ account_id: ACCOUNT_ID }, OWASP_RULESET_ID)).toBe(owasp);
    expect(Object.isFrozen(owasp.rules[0])).toBe(true);
    // Read inside a transaction too (execute checks do), the same object.
    expect(await store.transaction((tx) => tx.rulesets.get({ account_id: ACCOUNT_ID }, OWASP_RULESET_ID))).toBe(owasp);
    // Not visible from a zone, whatever the cache holds.
    expect(await store.rulesets.get({ zone_id: ZONE_IDS.pro }, OWASP_RULESET_ID)).toBeNull();
  });
});
