import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { DEFAULT_SEED_FILE, SeedFileError } from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import { MAIN_ACCOUNT_ID, OWASP_RULESET_ID, SECOND_ACCOUNT_ID, ZONE_IDS } from './fixtures';

export function seedingContract(harness: () => StoreHarness): void {
  afterAll(() => rmSync(seedDir, { recursive: true, force: true }));

  it('seeds an empty database from the default fixtures', async () => {
    const store = await harness().fresh();
    const accounts = await store.accounts.list();
    expect(accounts.items.map((account) => account.id).sort()).toEqual([MAIN_ACCOUNT_ID, SECOND_ACCOUNT_ID].sort());
    const zones = await store.zones.list({}, { per_page: 50 });
    expect(zones.result_info.total_count).toBe(7);
    expect(new Set(zones.items.map((zone) => zone.id))).toEqual(new Set(Object.values(ZONE_IDS)));
    expect((await store.rulesets.get({ account_id: MAIN_ACCOUNT_ID }, OWASP_RULESET_ID))?.version).toBe('3');
  });

  it('starts empty when seeding is switched off', async () => {
    const store = await harness().fresh({ seed: false });
    expect((await store.accounts.list()).result_info.total_count).toBe(0);
    expect(await store.zones.get(ZONE_IDS.pro)).toBeNull();
  });

  it('never seeds a database that holds data, even when reopened with another seed file', async () => {
    const store = await harness().fresh();
    await store.logpushJobs.create(ZONE_IDS.pro, { dataset: 'http_requests', destination_conf: 's3://b/p?region=eu' });
    await store.close();
    const reopened = await harness().reopen({ seed: writeSeed('{"not": "even valid"}') });
    expect((await reopened.accounts.list()).result_info.total_count).toBe(2);
    expect((await reopened.logpushJobs.list(ZONE_IDS.pro)).map((job) => job.id)).toEqual([1, 3]);
  });

  it('refuses a seed file that does not exist, naming it', async () => {
    const missing = join(seedDir, 'no-such-seed.json');
    const error = await harness().fresh({ seed: missing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SeedFileError);
    expect((error as SeedFileError).file).toBe(missing);
    expect((error as Error).message).toContain('cannot be read');
  });

  it('refuses a seed file that is not JSON', async () => {
    const file = writeSeed('{"accounts": [');
    const error = await harness().fresh({ seed: file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SeedFileError);
    expect((error as Error).message).toMatch(new RegExp(`seed file ${escape(file)} is invalid:\\n  is not valid JSON`));
  });

  it('names the file, the entry and the problem for a malformed entry', async () => {
    const seed = defaultSeed();
    seed.zones[2].plan.price = 'twenty';
    seed.zones[4].waf.firewall_rules[7].id = 'NOT-HEX';
    const error = await harness().fresh({ seed: writeSeed(JSON.stringify(seed)) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SeedFileError);
    const problems = (error as SeedFileError).problems;
    expect(problems).toContainEqual(expect.stringMatching(/^zones\[2\]\.plan\.price \(entry id 9d6991f5ca85bf43524971c922c4bcfc\): .*number/));
    expect(problems).toContainEqual(
      expect.stringMatching(/^zones\[4\]\.waf\.firewall_rules\[7\]\.id \(entry id NOT-HEX\): expected 32 lower-case hex characters$/),
    );
  });

  it('refuses unknown fields and broken references', async () => {
    const seed = defaultSeed();
    seed.accounts[0].colour = 'blue';
    const unknownField = await harness().fresh({ seed: writeSeed(JSON.stringify(seed)) }).catch((e: unknown) => e);
    expect((unknownField as SeedFileError).problems).toContainEqual(expect.stringMatching(/^accounts\[0\].*colour/));

    const broken = defaultSeed();
    broken.zones[0].account_id = 'ffffffffffffffffffffffffffffffff';
    broken.zones[2].rulesets[0].rules[1].action_parameters.overrides.rules[0].id = 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
    broken.invitations.push({ ...broken.invitations[0] });
    const error = await harness().fresh({ seed: writeSeed(JSON.stringify(broken)) }).catch((e: unknown) => e);
    expect((error as SeedFileError).problems).toEqual([
      expect.stringMatching(/^invitations\[3\]\.id .*duplicate invitation id 54cc8d424f72455b004f6066cb96b244 \(first at invitations\[0\]\.id\)$/),
      expect.stringMatching(/^zones\[0\]\.account_id .*no account ffffffffffffffffffffffffffffffff$/),
      expect.stringMatching(
        /^zones\[2\]\.rulesets\[0\]\.rules\[1\]\.action_parameters\.overrides\.rules\[0\]\.id .*no rule eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee in ruleset 4814384a9e5d4991b9815dcfc25d2f1f$/,
      ),
    ]);
  });

  it('leaves the database empty (and openable) after a refused seed', async () => {
    await expect(harness().fresh({ seed: writeSeed('[]') })).rejects.toBeInstanceOf(SeedFileError);
    const store = await harness().reopen({ seed: false });
    expect((await store.accounts.list()).result_info.total_count).toBe(0);
  });
}

// The seed is handled as loose JSON on purpose: the tests break it in ways types forbid.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function defaultSeed(): any {
  return JSON.parse(readFileSync(DEFAULT_SEED_FILE, 'utf8'));
}

const seedDir = mkdtempSync(join(tmpdir(), 'seed-files-'));
let written = 0;
function writeSeed(text: string): string {
  written += 1;
  const file = join(seedDir, `seed-${written}.json`);
  writeFileSync(file, text);
  return file;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
