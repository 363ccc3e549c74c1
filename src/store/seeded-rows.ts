import { deepFreeze } from './snapshot-cache';
import type { Account, Ruleset, Zone } from './types';

/**
 * Accounts, zones and platform-managed rulesets as read once. Only seeding writes them (no
 * operation creates, changes or deletes one; writes to a managed ruleset are refused), so what any process read of them stays true for the life of the database: every
 * request's zone or account lookup after the first is answered from memory, on every engine and
 * instance. An id not found is not remembered (a store opened on an empty database is seeded
 * later). Should an operation ever write these tables, it must go through `forget` here.
 * Entries are frozen: callers copy before they change anything.
 */
export class SeededRows {
  readonly #zones = new Map<string, Zone>();
  readonly #accounts = new Map<string, Account>();
  readonly #platformRulesets = new Map<string, Ruleset>();

  zone(id: string): Zone | undefined {
    return this.#zones.get(id);
  }

  rememberZone(zone: Zone): Zone {
    const frozen = deepFreeze(zone);
    this.#zones.set(zone.id, frozen);
    return frozen;
  }

  account(id: string): Account | undefined {
    return this.#accounts.get(id);
  }

  rememberAccount(account: Account): Account {
    const frozen = deepFreeze(account);
    this.#accounts.set(account.id, frozen);
    return frozen;
  }

  /** A platform-managed ruleset (no account, no zone) at its only version. */
  platformRuleset(id: string): Ruleset | undefined {
    return this.#platformRulesets.get(id);
  }

  rememberPlatformRuleset(ruleset: Ruleset): Ruleset {
    const frozen = deepFreeze(ruleset);
    this.#platformRulesets.set(ruleset.id, frozen);
    return frozen;
  }
}
