import type { RulesetScope } from './types';

/*
 * Names of what a write transaction locks before it reads what it will change (see
 * WriteContext.lock). A zone or an account owns its rulesets, phase entry points, previous-WAF
 * state and log push jobs: writes to one owner queue for one another, writes to different owners
 * never wait. Platform-managed rulesets are never written, so never locked.
 */

export function zoneLock(zoneId: string): string {
  return `zone:${zoneId}`;
}

export function accountLock(accountId: string): string {
  return `account:${accountId}`;
}

export function scopeLock(scope: RulesetScope): string {
  return 'zone_id' in scope ? zoneLock(scope.zone_id) : accountLock(scope.account_id);
}

/** The owner of a stored ruleset's row, or null for a platform-managed one. */
export function ownerLock(row: { zone_id: string | null; account_id: string | null }): string | null {
  if (row.zone_id !== null) return zoneLock(row.zone_id);
  if (row.account_id !== null) return accountLock(row.account_id);
  return null;
}

/** Seeding an empty database: two processes opening it at once must not both seed it. */
export const SEED_LOCK = 'database:seed';
