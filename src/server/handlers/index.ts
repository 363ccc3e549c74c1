import type { Handlers } from '../operations';
import { bucketObjectHandlers } from './bucket-objects';
import { bucketHandlers } from './buckets';
import { certificatePackHandlers } from './certificate-packs';
import { filterHandlers } from './filters';
import { invitationHandlers } from './invitations';
import { logpushHandlers } from './logpush';
import { previousWafHandlers } from './previous-waf';
import { ruleHandlers } from './rules';
import { rulesetVersionHandlers } from './ruleset-versions';
import { rulesetHandlers } from './rulesets';
import { simulatorHandlers } from './simulator';
import { temporaryCredentialHandlers } from './temporary-credentials';
import { userHandlers } from './users';
import { wafMigrationHandlers } from './waf-migration';
import { workerAssetHandlers } from './worker-assets';
import { workerRouteHandlers } from './worker-routes';
import { workerTailHandlers } from './worker-tails';
import { workerHandlers } from './workers';
import { zoneHandlers } from './zones';

/** Every operation of the document, by operationId: one module per resource family. */
export const handlers: Handlers = {
  ...zoneHandlers,
  ...certificatePackHandlers,
  ...invitationHandlers,
  ...rulesetHandlers,
  ...ruleHandlers,
  ...rulesetVersionHandlers,
  ...logpushHandlers,
  ...filterHandlers,
  ...wafMigrationHandlers,
  ...previousWafHandlers,
  ...simulatorHandlers,
  ...bucketHandlers,
  ...bucketObjectHandlers,
  ...temporaryCredentialHandlers,
  ...userHandlers,
  ...workerHandlers,
  ...workerRouteHandlers,
  ...workerAssetHandlers,
  ...workerTailHandlers,
};
