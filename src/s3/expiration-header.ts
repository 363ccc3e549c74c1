/**
 * `x-amz-expiration`: when the bucket's lifecycle rules delete an object, told on its writes and
 * reads as S3 tells it (`expiry-date="<HTTP date>", rule-id="<URL-encoded id>"`): the earliest of
 * the enabled rules that delete objects under a prefix of its key. The time is the one the
 * runtime deletes it from (its upload time plus the rule's age, or the rule's date; the sweep runs
 * within a minute of it), up to the next whole second an HTTP date can say, not to the next
 * midnight as S3's.
 *
 * The rules are read again at most once a second per bucket: an object's answer pays no read of
 * them, and a rule changed through the management API or another process shows here within a
 * second (at once when changed through this endpoint; the deletions themselves read the rules at
 * each sweep).
 */
import { BucketCatalogueError, CatalogueCode, type AccountBuckets, type LifecycleRule } from '../bucket';

const FRESH_MS = 1000;

export class ExpirationHeaders {
  readonly #read = new Map<string, { rules: readonly LifecycleRule[]; at: number }>();

  constructor(private readonly buckets: AccountBuckets) {}

  /**
   * The header for an object of `bucket` stored under `key` at `uploaded`; none when no rule
   * deletes it. A promise only when the rules must be read again (at most once a second).
   */
  of(bucket: string, key: string, uploaded: Date): Record<string, string> | Promise<Record<string, string>> {
    const known = this.#read.get(bucket);
    if (known && performance.now() - known.at < FRESH_MS) return headerOf(known.rules, key, uploaded);
    return this.#rules(bucket).then((rules) => headerOf(rules, key, uploaded));
  }

  /** Rules changed through this endpoint show at once. */
  forget(bucket: string): void {
    this.#read.delete(bucket);
  }

  async #rules(bucket: string): Promise<readonly LifecycleRule[]> {
    const rules = await this.buckets.lifecycle(bucket).catch((error: unknown) => {
      // A bucket gone since the object was answered has no rules to tell of.
      if (error instanceof BucketCatalogueError && error.code === CatalogueCode.noSuchBucket) return [];
      throw error;
    });
    this.#read.set(bucket, { rules, at: performance.now() });
    return rules;
  }
}

function headerOf(rules: readonly LifecycleRule[], key: string, uploaded: Date): Record<string, string> {
  let earliest: { at: number; id: string } | undefined;
  for (const rule of rules) {
    const deletion = rule.deleteObjectsTransition?.condition;
    if (!rule.enabled || !deletion || !key.startsWith(rule.conditions.prefix)) continue;
    const at = deletion.type === 'Age' ? uploaded.getTime() + deletion.maxAge * 1000 : Date.parse(deletion.date);
    if (earliest === undefined || at < earliest.at) earliest = { at, id: rule.id };
  }
  if (earliest === undefined) return {};
  const date = new Date(Math.ceil(earliest.at / 1000) * 1000).toUTCString();
  return { 'x-amz-expiration': `expiry-date="${date}", rule-id="${encodeURIComponent(earliest.id)}"` };
}
