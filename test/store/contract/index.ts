import { afterEach, beforeEach, describe } from 'vitest';
import type { StoreHarness } from '../helpers/harness';
import { accountLogpushJobsContract } from './account-logpush-jobs';
import { accountsAndUsersContract } from './accounts-users';
import { certificatePacksContract } from './certificate-packs';
import { edgeReadsContract } from './edge-reads';
import { logpushJobsContract } from './logpush-jobs';
import { previousWafContract } from './previous-waf';
import { rulesetEditsContract } from './ruleset-edits';
import { rulesetsContract } from './rulesets';
import { seedingContract } from './seeding';
import { transactionsContract } from './transactions';
import { zoneListAndJobDeletionContract } from './zone-list-and-job-deletion';
import { workersContract } from './workers';
import { zonesAndWafContract } from './zones-waf';

/** Everything a Store must do, whatever the engine: run it once per engine with its harness. */
export function describeStoreContract(engine: string, createHarness: () => StoreHarness): void {
  let harness: StoreHarness | undefined;
  const current = (): StoreHarness => {
    if (harness === undefined) throw new Error('harness used outside a test');
    return harness;
  };
  describe(`store contract (${engine})`, () => {
    beforeEach(() => {
      harness = createHarness();
    });
    afterEach(async () => {
      await harness?.cleanup();
      harness = undefined;
    });
    seedingContract(current);
    accountsAndUsersContract(current);
    zonesAndWafContract(current);
    previousWafContract(current);
    certificatePacksContract(current);
    rulesetsContract(current);
    rulesetEditsContract(current);
    logpushJobsContract(current);
    accountLogpushJobsContract(current);
    zoneListAndJobDeletionContract(current);
    transactionsContract(current);
    edgeReadsContract(current);
    workersContract(current);
  });
}
