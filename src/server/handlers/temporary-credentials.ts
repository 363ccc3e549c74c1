/**
 * Temporary S3 credentials for one bucket: derived from a parent S3 access key the S3 endpoint
 * also knows, so that it can check them without anything stored (see
 * `src/bucket/temporary-credentials.ts`).
 */
import { issueTemporaryCredentials } from '../../bucket';
import { answering } from '../buckets/errors';
import { badRequest } from '../http/errors';
import type { Handler } from '../operations';
import { accountBuckets } from './buckets';

export const temporaryCredentialHandlers: { createTemporaryCredentials: Handler<'createTemporaryCredentials'> } = {
  createTemporaryCredentials: (context) =>
    answering(async () => {
      const account = context.params.account_id;
      const buckets = await accountBuckets(context, account);
      const { bucket, parentAccessKeyId, permission, ttlSeconds, prefixes, objects } = context.body;
      await buckets.get(bucket);
      const parentSecret = context.s3AccessKeys.get(parentAccessKeyId);
      if (parentSecret === undefined) {
        throw badRequest(
          `body/parentAccessKeyId: no S3 access key ${parentAccessKeyId} is configured (S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY)`,
        );
      }
      const credentials = issueTemporaryCredentials(
        {
          account,
          bucket,
          parentAccessKeyId,
          permission,
          expiresAt: Date.now() + ttlSeconds * 1000,
          ...(prefixes === undefined ? {} : { prefixes }),
          ...(objects === undefined ? {} : { objects }),
        },
        parentSecret,
      );
      return { result: credentials };
    }),
};
