import type { Handlers } from '../http/operations';
import { accountLogpushHandlers } from './account-logpush';
import { bucketObjectHandlers } from './bucket-objects';
import { bucketHandlers } from './buckets';
import { filterHandlers } from './filters';
import { invitationHandlers } from './invitations';
import { logpushHandlers } from './logpush';
import { previousWafHandlers } from './previous-waf';
import { rulesetEditHandlers } from './ruleset-edits';
import { rulesetVersionHandlers } from './ruleset-versions';
import { rulesetHandlers } from './rulesets';
import { simulatorHandlers } from './simulator';
import { temporaryCredentialHandlers } from './temporary-credentials';
import { userHandlers } from './users';
import { wafMigrationHandlers } from './waf-migration';
import { zoneListHandlers } from './zone-list';
import { zoneHandlers } from './zones';

/** Every operation of the document, by operationId. */
export const handlers: Handlers = {
  ...zoneHandlers,
  ...zoneListHandlers,
  ...invitationHandlers,
  ...rulesetHandlers,
  ...rulesetEditHandlers,
  ...rulesetVersionHandlers,
  ...logpushHandlers,
  ...accountLogpushHandlers,
  ...filterHandlers,
  ...wafMigrationHandlers,
  ...previousWafHandlers,
  ...simulatorHandlers,
  ...bucketHandlers,
  ...bucketObjectHandlers,
  ...temporaryCredentialHandlers,
  ...userHandlers,
};
