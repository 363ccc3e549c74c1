/** The platform's public ids of the managed rulesets the WAF migration deploys. */
export const OWASP_RULESET_ID = '4814384a9e5d4991b9815dcfc25d2f1f';
export const MANAGED_RULESET_ID = 'efb7b8c949ac4650a09736fc376e9aee';

export const MANAGED_PHASE = 'http_request_firewall_managed';

/** Limits past which the migration cannot proceed and support must be contacted. */
export const MAX_MIGRATED_FIREWALL_RULES = 200;
export const MAX_FIREWALL_EXPRESSION_BYTES = 4096;
