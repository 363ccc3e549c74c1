/**
 * Lifecycle rules of a bucket, and what they mean to the runtime: at what age an unfinished
 * multipart upload is aborted, and when an object is deleted. Shapes are the management API's
 * (camelCase, ages in seconds).
 */

export interface LifecycleAge {
  type: 'Age';
  /** Seconds since the object was stored or the upload started. */
  maxAge: number;
}

export interface LifecycleDate {
  type: 'Date';
  /** ISO 8601. */
  date: string;
}

export interface LifecycleRule {
  id: string;
  enabled: boolean;
  conditions: { prefix: string };
  abortMultipartUploadsTransition?: { condition: LifecycleAge };
  deleteObjectsTransition?: { condition: LifecycleAge | LifecycleDate };
  storageClassTransitions?: { condition: LifecycleAge | LifecycleDate; storageClass: 'InfrequentAccess' }[];
  /** How S3 wrote the rule, so that S3 reads it back as written; none for a rule set through the management API. */
  s3?: S3RuleForm;
}

/**
 * What an S3 lifecycle rule says beyond the management API's rules: where its prefix was written,
 * and its actions on object versions. Buckets here keep no versions (as on the platform), so those
 * actions never find anything to act on, as on any S3 bucket without versioning: they are kept to
 * be read back, and act on nothing. Not part of the management API's answers.
 */
export interface S3RuleForm {
  /** The older top-level `Prefix`, a `Filter` (with a `Prefix`, or empty), or a `Filter` with `And`. */
  scope: 'Prefix' | 'Filter' | 'And';
  expiredObjectDeleteMarker?: boolean;
  noncurrentVersionExpiration?: { noncurrentDays?: number; newerNoncurrentVersions?: number };
  noncurrentVersionTransitions?: { noncurrentDays: number; newerNoncurrentVersions?: number; storageClass: 'STANDARD_IA' }[];
}

/** Whether a rule acts on versions only (which a bucket here never has). */
const actsOnVersions = (rule: LifecycleRule) =>
  rule.s3 !== undefined &&
  (rule.s3.expiredObjectDeleteMarker === true ||
    rule.s3.noncurrentVersionExpiration !== undefined ||
    (rule.s3.noncurrentVersionTransitions?.length ?? 0) > 0);

/** The platform's rule of every new bucket: unfinished uploads are aborted after 7 days. */
export const DEFAULT_LIFECYCLE_RULES: readonly LifecycleRule[] = Object.freeze([
  Object.freeze({
    id: 'Default Multipart Abort Rule',
    enabled: true,
    conditions: { prefix: '' },
    abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: 7 * 24 * 60 * 60 } },
  }) as LifecycleRule,
]);

/** What the runtime reads the rules through (the catalogue's current rules of the bucket). */
export type LifecycleSource = () => Promise<readonly LifecycleRule[]>;

export const defaultLifecycle: LifecycleSource = async () => DEFAULT_LIFECYCLE_RULES;

/** The rules as the runtime applies them. */
export interface LifecyclePolicy {
  /**
   * When every enabled abort rule covers every key: the shortest age, in milliseconds (one
   * cut-off for all uploads). Undefined when the ages differ by prefix or no rule aborts.
   */
  readonly uniformAbortAgeMs: number | undefined;
  /** Whether some enabled rule aborts uploads of some keys. */
  readonly abortsUploads: boolean;
  /** The age after which an upload of `key` is aborted (shortest of the matching rules), in ms. */
  abortAgeMs(key: string): number | undefined;
  /** Whether some enabled rule deletes objects. */
  readonly deletesObjects: boolean;
  /** The prefixes under which objects may be due for deletion. */
  readonly deletionPrefixes: readonly string[];
  /** Whether an object of `key` stored at `uploaded` (epoch ms) is due for deletion at `now`. */
  objectExpired(key: string, uploaded: number, now: number): boolean;
}

export function lifecyclePolicy(rules: readonly LifecycleRule[]): LifecyclePolicy {
  const enabled = rules.filter((rule) => rule.enabled);
  const aborting = enabled.filter((rule) => rule.abortMultipartUploadsTransition);
  const deleting = enabled.filter((rule) => rule.deleteObjectsTransition);
  const ageOf = (rule: LifecycleRule) => rule.abortMultipartUploadsTransition!.condition.maxAge * 1000;
  const uniform =
    aborting.length > 0 && aborting.every((rule) => rule.conditions.prefix === '')
      ? Math.min(...aborting.map(ageOf))
      : undefined;
  return {
    uniformAbortAgeMs: uniform,
    abortsUploads: aborting.length > 0,
    abortAgeMs(key) {
      const ages = aborting.filter((rule) => key.startsWith(rule.conditions.prefix)).map(ageOf);
      return ages.length === 0 ? undefined : Math.min(...ages);
    },
    deletesObjects: deleting.length > 0,
    deletionPrefixes: deleting.map((rule) => rule.conditions.prefix),
    objectExpired(key, uploaded, now) {
      return deleting.some((rule) => {
        if (!key.startsWith(rule.conditions.prefix)) return false;
        const condition = rule.deleteObjectsTransition!.condition;
        return condition.type === 'Age' ? uploaded + condition.maxAge * 1000 <= now : Date.parse(condition.date) <= now;
      });
    },
  };
}

/**
 * What the schema cannot say about a set of rules: ids are unique and every rule does
 * something. Null when the rules are fine, else a message naming the rule (`rules/N`).
 */
export function lifecycleRulesProblem(rules: readonly LifecycleRule[]): string | null {
  const seen = new Map<string, number>();
  for (const [index, rule] of rules.entries()) {
    const first = seen.get(rule.id);
    if (first !== undefined) return `rules/${index}/id: "${rule.id}" is already the id of rules/${first}; rule ids must be unique`;
    seen.set(rule.id, index);
    const transitions = rule.storageClassTransitions ?? [];
    if (!rule.abortMultipartUploadsTransition && !rule.deleteObjectsTransition && transitions.length === 0 && !actsOnVersions(rule)) {
      return `rules/${index}: the rule has no action; give it abortMultipartUploadsTransition, deleteObjectsTransition or storageClassTransitions`;
    }
    const deletion = rule.deleteObjectsTransition?.condition;
    if (deletion?.type === 'Date' && Number.isNaN(Date.parse(deletion.date))) {
      return `rules/${index}/deleteObjectsTransition/condition/date: "${deletion.date}" is not a date`;
    }
  }
  return null;
}
