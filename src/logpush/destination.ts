/**
 * Where a job's logs go, read from its `destination_conf`. The platform's own buckets are the one
 * kind of destination this platform reaches: `r2://<bucket>/<path>?account-id=<id>&access-key-id=
 * <key>&secret-access-key=<secret>`, authenticated by the S3 credentials it carries (no ownership
 * challenge, as on the platform). Any other scheme (s3, gs, azure, https, sumo, splunk, datadog,
 * newrelic) names a service outside: such a job is kept, and each delivery is reported failing.
 */
import { timingSafeEqual, createHash } from 'node:crypto';

export interface BucketDestination {
  kind: 'bucket';
  bucket: string;
  /** The path under the bucket, without leading or trailing slashes; may hold `{DATE}`. */
  path: string;
  accountId: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface OutsideDestination {
  kind: 'outside';
  /** The scheme (`s3`, `https`...). */
  scheme: string;
}

export type Destination = BucketDestination | OutsideDestination;

/** A destination this platform would write to is named wrongly. */
export class DestinationError extends Error {
  override readonly name = 'DestinationError';
}

const R2_PARAMETERS = ['account-id', 'access-key-id', 'secret-access-key'] as const;

/** Reads a destination; throws DestinationError for an `r2://` one missing a part. Other schemes are outside. */
export function parseDestination(destinationConf: string): Destination {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(destinationConf)?.[1]?.toLowerCase();
  // What the store answers for a destination it cannot open says so itself (it holds no secret).
  if (scheme === undefined) throw new DestinationError(destinationConf.startsWith('(') ? destinationConf.slice(1, -1) : 'the destination is not a URL');
  if (scheme !== 'r2') return { kind: 'outside', scheme };
  const match = /^r2:\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?$/i.exec(destinationConf);
  const bucket = match?.[1] ?? '';
  if (bucket === '') throw new DestinationError('an r2 destination names its bucket: r2://<bucket>/<path>?account-id=...&access-key-id=...&secret-access-key=...');
  const query = new URLSearchParams(match![3] ?? '');
  const missing = R2_PARAMETERS.filter((name) => (query.get(name) ?? '') === '');
  if (missing.length > 0) throw new DestinationError(`an r2 destination carries account-id, access-key-id and secret-access-key in its query; missing: ${missing.join(', ')}`);
  return {
    kind: 'bucket',
    bucket,
    path: decodeURIComponent(match![2] ?? '').replace(/^\/+|\/+$/g, ''),
    accountId: query.get('account-id')!,
    accessKeyId: query.get('access-key-id')!,
    secretAccessKey: query.get('secret-access-key')!,
  };
}

/** The destination with its secret replaced, for messages: a secret is never shown or logged. */
export function describeDestination(destination: Destination): string {
  return destination.kind === 'bucket' ? `r2://${destination.bucket}/${destination.path}` : `a ${destination.scheme || 'non-URL'} destination`;
}

/**
 * The S3 credentials this platform accepts for its buckets: the S3 endpoint's access keys, good
 * for the one account whose buckets it serves.
 */
export class BucketCredentials {
  readonly #secrets: Map<string, Buffer>;

  constructor(
    accessKeys: ReadonlyMap<string, string>,
    /** The account whose buckets the keys open. */
    readonly accountId: string,
  ) {
    this.#secrets = new Map([...accessKeys].map(([id, secret]) => [id, digest(secret)]));
  }

  /** Why the destination's credentials are refused, or null when they are accepted. */
  problem(destination: BucketDestination): string | null {
    if (destination.accountId !== this.accountId) {
      return `account ${destination.accountId} has no buckets on this platform that its S3 keys open (its buckets are account ${this.accountId}'s)`;
    }
    const expected = this.#secrets.get(destination.accessKeyId);
    // Compared as digests of one length, in constant time: the secret's length shows nothing either.
    const accepted = expected !== undefined && timingSafeEqual(expected, digest(destination.secretAccessKey));
    return accepted ? null : `the access key ${destination.accessKeyId} and its secret are not an S3 access key of this platform`;
  }
}

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}
