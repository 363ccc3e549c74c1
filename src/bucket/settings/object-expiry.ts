/**
 * Objects deleted by the bucket's lifecycle rules. The platform deletes expired objects some
 * time after they expire, not at the instant; here a bucket looks for them when it is used, at
 * most once a minute (by its clock), so a busy bucket pays a scan a minute, not one per call; on
 * storage shared by several processes (PostgreSQL), one of them looks each minute.
 */
import type { ObjectRecord, PageBuilder, StorageEngine } from '../engine';
import { lifecyclePolicy } from './lifecycle';
import type { RuntimeSettings } from './settings';

/** Longest time between two looks for expired objects of a bucket in use. */
export const OBJECT_SWEEP_INTERVAL_MS = 60_000;

/**
 * The last look per storage, not per bucket object: front doors open a bucket per request over
 * one shared storage, and the minute is the storage's.
 */
const sweeps = new WeakMap<StorageEngine, { last: number; running?: Promise<void> }>();

export class ObjectExpiry {
  constructor(
    private readonly engine: StorageEngine,
    private readonly settings: RuntimeSettings,
  ) {}

  /** Deletes the objects the rules expire, when the last look is a minute old or more. */
  async sweepIfDue(): Promise<void> {
    const now = this.settings.clock();
    let state = sweeps.get(this.engine);
    if (!state) sweeps.set(this.engine, (state = { last: Number.NEGATIVE_INFINITY }));
    if (now - state.last < OBJECT_SWEEP_INTERVAL_MS) return state.running;
    state.last = now;
    const running = this.#sweep(now).finally(() => {
      if (state.running === running) delete state.running;
    });
    state.running = running;
    return running;
  }

  async #sweep(now: number): Promise<void> {
    const policy = lifecyclePolicy(await this.settings.lifecycle());
    if (!policy.deletesObjects) return;
    // Instances of other processes on the same storage may have looked within the minute.
    if (this.engine.claimExpirySweep && !(await this.engine.claimExpirySweep(now, OBJECT_SWEEP_INTERVAL_MS))) return;
    for (const prefix of new Set(policy.deletionPrefixes)) {
      const expired = await this.engine.list(() => expiredKeys(prefix, (key, uploaded) => policy.objectExpired(key, uploaded, now)));
      for (let at = 0; at < expired.length; at += 1000) await this.engine.delete(expired.slice(at, at + 1000));
    }
  }
}

/** Asks for the keys under `prefix` a thousand at a time and keeps those `expired` names. */
function* expiredKeys(prefix: string, expired: (key: string, uploaded: number) => boolean): PageBuilder<string[]> {
  const keys: string[] = [];
  const limit = 1000;
  for (let from = prefix; ; ) {
    const records: ObjectRecord[] = yield { from, prefix, limit };
    for (const record of records) if (expired(record.key, record.uploaded)) keys.push(record.key);
    if (records.length < limit) return keys;
    // The next key after the last one seen, in UTF-8 byte order.
    from = `${records[records.length - 1]!.key}\u0000`;
  }
}
