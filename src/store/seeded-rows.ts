import { deepFreeze } from './codecs';

/**
 * Rows only seeding writes (accounts, zones, platform-managed rulesets), by id, as read once. No
 * operation creates, changes or deletes one (writes to a managed ruleset are refused), so what any
 * process read of them stays true for the life of the database: every request's zone or account
 * lookup after the first is answered from memory, on every engine and instance. An id not found is
 * not remembered (a store opened on an empty database is seeded later). Should an operation ever
 * write these tables, it must forget what it changes here. Each value is frozen as it is
 * remembered (callers copy before they change anything).
 */
export class SeededRows<T extends { id: string }> {
  readonly #entries = new Map<string, T>();

  get(id: string): T | undefined {
    return this.#entries.get(id);
  }

  remember(value: T): T {
    const frozen = deepFreeze(value);
    this.#entries.set(value.id, frozen);
    return frozen;
  }
}
