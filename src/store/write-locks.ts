import type { RulesetScope } from './types';

/*
 * Names of what a write transaction locks before it reads what it will change (see
 * WriteContext.lock): the thing itself, not its zone or account. Writes to one ruleset, one phase
 * entry point, one zone's previous-WAF state or one log push job queue for one another; writes to
 * different ones (in one zone or not) never wait. Platform-managed rulesets are never written, so
 * never locked.
 *
 * Order: a transaction that takes several takes a zone's previous-WAF state first, then a phase
 * entry point, then rulesets. The WAF migration writes the managed phase's entry point and the
 * state together, and every creation or replacement of that entry point reads the state first;
 * no previous-WAF write touches a ruleset. Rulesets are locked in the order a transaction reaches
 * them (those its rules reference, the one it writes): when two transactions cross, the engine
 * ends one as a deadlock and it runs again.
 *
 * Nothing locks an owner as a whole: no write depends on a list of an owner's rulesets or jobs
 * (a new ruleset or job gets an id no one else holds; the one rule across an owner's rulesets,
 * one entry point per phase, has its own lock and the unique index behind it).
 */

/** One ruleset: its row, rules and versions. */
export function rulesetLock(rulesetId: string): string {
  return `ruleset:${rulesetId}`;
}

/** Which ruleset is the owner's entry point of a phase: taken to create or replace it. */
export function entryPointLock(scope: RulesetScope, phase: string): string {
  const owner = 'zone_id' in scope ? `zone:${scope.zone_id}` : `account:${scope.account_id}`;
  return `entrypoint:${owner}:${phase}`;
}

/** A zone's previous WAF: its migration state, packages and overrides. */
export function wafLock(zoneId: string): string {
  return `waf:${zoneId}`;
}

/** One log push job (job ids are unique across zones and accounts). */
export function jobLock(jobId: number): string {
  return `job:${jobId}`;
}

/** Seeding an empty database: two processes opening it at once must not both seed it. */
export const SEED_LOCK = 'database:seed';
