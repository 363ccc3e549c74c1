/** Ids the tests rely on, taken from the fixture generator so they cannot drift apart. */
export { PENDING_INVITATION_ID } from '../../../fixtures/generator/build';
export { MANY_FIREWALL_RULES } from '../../../fixtures/generator/firewall-rules';
export { fixtureId } from '../../../fixtures/generator/ids';
export { OWASP_RULESET_ID, OWASP_THRESHOLD_RULE_ID } from '../../../fixtures/generator/owasp';
export { PLATFORM_MANAGED_RULESET_ID } from '../../../fixtures/generator/platform-managed';
export {
  DEFAULT_USER_EMAIL,
  DEFAULT_USER_ID,
  MAIN_ACCOUNT_ID,
  SECOND_ACCOUNT_ID,
  ZONE_IDS,
} from '../../../fixtures/generator/zones';

export const FIREWALL_MANAGED = 'http_request_firewall_managed';
export const CUSTOM_FIELDS = 'http_log_custom_fields';
