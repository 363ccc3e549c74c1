/**
 * The account's buckets: creation, listing, settings (default storage class, CORS, lifecycle)
 * and deletion, through the catalogue that workers and the S3 endpoint share.
 */
import {
  corsRulesProblem,
  lifecycleRulesProblem,
  type AccountBuckets,
  type BucketInfo,
  type BucketJurisdiction,
  type CorsRule,
  type LifecycleRule,
  type OpenBucket,
} from '../../bucket';
import { answering, BucketCodes } from '../buckets/errors';
import { ApiError, badRequest } from '../http/errors';
import type { Context, Handler, OperationId } from '../operations';
import { requireAccount } from './access';

type BucketOperation =
  | 'listBuckets'
  | 'createBucket'
  | 'getBucket'
  | 'updateBucket'
  | 'deleteBucket'
  | 'getBucketCors'
  | 'updateBucketCors'
  | 'deleteBucketCors'
  | 'getBucketLifecycle'
  | 'updateBucketLifecycle';

/** The jurisdiction a request names (`cf-r2-jurisdiction`, checked by the validator). */
export function jurisdictionOf<O extends OperationId>(context: Context<O>): { jurisdiction?: BucketJurisdiction } {
  const value = context.request.headers['cf-r2-jurisdiction'];
  return typeof value === 'string' ? { jurisdiction: value as BucketJurisdiction } : {};
}

/** The buckets of the path's account, once the credentials are known to reach it. */
export async function accountBuckets<O extends OperationId>(context: Context<O>, accountId: string): Promise<AccountBuckets> {
  await requireAccount(context, accountId);
  return context.buckets.account(accountId);
}

/** The path's bucket, opened for its objects: found through the jurisdiction the request names. */
export async function openPathBucket<O extends OperationId>(
  context: Context<O>,
  accountId: string,
  name: string,
): Promise<OpenBucket> {
  const buckets = await accountBuckets(context, accountId);
  await buckets.get(name, jurisdictionOf(context));
  return buckets.open(name);
}

function bucketView(bucket: BucketInfo) {
  return {
    name: bucket.name,
    creation_date: bucket.createdAt.toISOString(),
    location: bucket.location,
    storage_class: bucket.storageClass,
    jurisdiction: bucket.jurisdiction,
  };
}

const EMPTY = Object.freeze({});

export const bucketHandlers: { [O in BucketOperation]: Handler<O> } = {
  listBuckets: (context) =>
    answering(async () => {
      const buckets = await accountBuckets(context, context.params.account_id);
      const { query } = context;
      const perPage = query.per_page ?? 20;
      let page;
      try {
        page = await buckets.list({
          ...jurisdictionOf(context),
          ...(query.name_contains === undefined ? {} : { nameContains: query.name_contains }),
          ...(query.start_after === undefined ? {} : { startAfter: query.start_after }),
          ...(query.cursor === undefined || query.cursor === '' ? {} : { cursor: query.cursor }),
          perPage,
          direction: query.direction ?? 'asc',
        });
      } catch (error) {
        if (error instanceof RangeError) throw badRequest(`query/cursor: ${error.message}`);
        throw error;
      }
      return {
        result: { buckets: page.buckets.map(bucketView) },
        result_info: { per_page: perPage, ...(page.cursor === undefined ? {} : { cursor: page.cursor }) },
      };
    }),

  createBucket: (context) =>
    answering(async () => {
      const buckets = await accountBuckets(context, context.params.account_id);
      const { name, locationHint, storageClass } = context.body;
      const created = await buckets.create(name, {
        ...jurisdictionOf(context),
        ...(locationHint === undefined ? {} : { locationHint }),
        ...(storageClass === undefined ? {} : { storageClass }),
      });
      return { result: bucketView(created) };
    }),

  getBucket: (context) =>
    answering(async () => {
      const buckets = await accountBuckets(context, context.params.account_id);
      return { result: bucketView(await buckets.get(context.params.bucket_name, jurisdictionOf(context))) };
    }),

  updateBucket: (context) =>
    answering(async () => {
      const buckets = await accountBuckets(context, context.params.account_id);
      const storageClass = context.request.headers['cf-r2-storage-class'];
      if (typeof storageClass !== 'string') {
        throw badRequest('headers/cf-r2-storage-class: required; it names the new default storage class (Standard or InfrequentAccess)');
      }
      const bucket = await buckets.setStorageClass(context.params.bucket_name, storageClass as BucketInfo['storageClass'], jurisdictionOf(context));
      return { result: bucketView(bucket) };
    }),

  deleteBucket: (context) =>
    answering(async () => {
      const buckets = await accountBuckets(context, context.params.account_id);
      await buckets.delete(context.params.bucket_name, jurisdictionOf(context));
      return { result: EMPTY };
    }),

  getBucketCors: (context) =>
    answering(async () => {
      const buckets = await accountBuckets(context, context.params.account_id);
      const name = context.params.bucket_name;
      const rules = await buckets.cors(name, jurisdictionOf(context));
      if (rules === null) throw ApiError.of(404, BucketCodes.noCorsPolicy, `The CORS configuration does not exist: ${name} has no CORS rules.`);
      return { result: { rules } };
    }),

  updateBucketCors: (context) =>
    answering(async () => {
      const buckets = await accountBuckets(context, context.params.account_id);
      const rules = context.body.rules as CorsRule[];
      const problem = corsRulesProblem(rules);
      if (problem) throw badRequest(`body/${problem}`);
      await buckets.setCors(context.params.bucket_name, rules, jurisdictionOf(context));
      return { result: EMPTY };
    }),

  deleteBucketCors: (context) =>
    answering(async () => {
      const buckets = await accountBuckets(context, context.params.account_id);
      await buckets.setCors(context.params.bucket_name, null, jurisdictionOf(context));
      return { result: EMPTY };
    }),

  getBucketLifecycle: (context) =>
    answering(async () => {
      const buckets = await accountBuckets(context, context.params.account_id);
      const rules = await buckets.lifecycle(context.params.bucket_name, jurisdictionOf(context));
      // How S3 wrote a rule (its prefix's place, its actions on versions) is S3's alone.
      return { result: { rules: rules.map(({ s3: _s3Form, ...rule }) => rule) } };
    }),

  updateBucketLifecycle: (context) =>
    answering(async () => {
      const buckets = await accountBuckets(context, context.params.account_id);
      const rules = context.body.rules as LifecycleRule[];
      const problem = lifecycleRulesProblem(rules);
      if (problem) throw badRequest(`body/${problem}`);
      await buckets.setLifecycle(context.params.bucket_name, rules, jurisdictionOf(context));
      return { result: EMPTY };
    }),
};
