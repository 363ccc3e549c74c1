import type { Handlers } from '../http/operations';
import { filterHandlers } from './filters';
import { invitationHandlers } from './invitations';
import { logpushHandlers } from './logpush';
import { previousWafHandlers } from './previous-waf';
import { rulesetHandlers } from './rulesets';
import { simulatorHandlers } from './simulator';
import { wafMigrationHandlers } from './waf-migration';
import { zoneHandlers } from './zones';

/** Every operation of the document, by operationId. */
export const handlers: Handlers = {
  ...zoneHandlers,
  ...invitationHandlers,
  ...rulesetHandlers,
  ...logpushHandlers,
  ...filterHandlers,
  ...wafMigrationHandlers,
  ...previousWafHandlers,
  ...simulatorHandlers,
};
