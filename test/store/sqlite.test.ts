import { describeStoreContract } from './contract';
import { sqliteHarness } from './helpers/sqlite-harness';

describeStoreContract('sqlite', sqliteHarness);
