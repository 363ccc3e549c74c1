// Worker code written against the edge platform's published bucket typings must run against our
// contract unchanged: our Bucket goes where theirs is expected, values typed for theirs go into
// our methods, and our results satisfy the types their code reads.
//
// The platform's typings describe workerd's own web classes (its ReadableStream readers have
// `readAtLeast`, its Headers `getAll`); a worker hosted in Node gets Node's. So the comparison is
// made with the platform's web classes read as the host's (as Miniflare's ReplaceWorkersTypes
// does): everything else, every method, overload, option and field, must match as published.
import type {
  Blob as PlatformBlob,
  Headers as PlatformHeaders,
  R2Bucket,
  R2Checksums,
  R2Conditional,
  R2GetOptions,
  R2HTTPMetadata,
  R2ListOptions,
  R2MultipartOptions,
  R2MultipartUpload,
  R2Object,
  R2ObjectBody,
  R2Objects,
  R2PutOptions,
  R2Range,
  R2UploadedPart,
  ReadableStream as PlatformReadableStream,
} from '@cloudflare/workers-types/index';
import { describe, expectTypeOf, test } from 'vitest';
import type { OpenBucket } from '../../src/bucket';
import type {
  Bucket,
  Checksums,
  Conditional,
  GetOptions,
  HttpMetadata,
  ListOptions,
  ListResult,
  MultipartOptions,
  MultipartUpload,
  Range,
  StoredObject,
  StoredObjectBody,
  UploadedPart,
} from '../../src/bucket/contract';

/** A platform type with its web classes read as the host's; functions keep up to two overloads. */
type InHost<T> = T extends PlatformReadableStream
  ? ReadableStream
  : T extends PlatformHeaders
    ? Headers
    : T extends PlatformBlob
      ? Blob
      : T extends Date | ArrayBuffer | ArrayBufferView | string | number | boolean | null | undefined
        ? T
        : T extends Promise<infer P>
          ? Promise<InHost<P>>
          : T extends (...args: never[]) => unknown
            ? Callable<T>
            : { [K in keyof T]: InHost<T[K]> };

type Callable<T> = T extends {
  (...args: infer A1): infer R1;
  (...args: infer A2): infer R2;
}
  ? { (...args: InHostTuple<A1>): InHost<R1>; (...args: InHostTuple<A2>): InHost<R2> }
  : never;

type InHostTuple<A> = { [K in keyof A]: InHost<A[K]> };

describe('our Bucket where the platform bucket is expected', () => {
  test('the contract and the runtime bucket are assignable to R2Bucket', () => {
    expectTypeOf<Bucket>().toExtend<InHost<R2Bucket>>();
    expectTypeOf<OpenBucket>().toExtend<InHost<R2Bucket>>();
  });

  test('the comparison has teeth: the mapped platform bucket is precise', () => {
    expectTypeOf<InHost<R2Bucket>>().not.toBeAny();
    expectTypeOf<InHost<R2Bucket>['head']>().parameters.toEqualTypeOf<[key: string]>();
    expectTypeOf<InHost<R2Bucket>['delete']>().parameters.toEqualTypeOf<[keys: string | string[]]>();
    expectTypeOf<Omit<Bucket, 'list'>>().not.toExtend<InHost<R2Bucket>>();
    expectTypeOf<Omit<Bucket, 'resumeMultipartUpload'>>().not.toExtend<InHost<R2Bucket>>();
    type WrongHead = Omit<Bucket, 'head'> & { head(key: string): Promise<string | null> };
    expectTypeOf<WrongHead>().not.toExtend<InHost<R2Bucket>>();
    type NoRangeOnReads = Omit<Bucket, 'get'> & {
      get(key: string, options?: { onlyIf?: Conditional }): Promise<StoredObjectBody | null>;
    };
    expectTypeOf<NoRangeOnReads>().not.toExtend<InHost<R2Bucket>>();
  });

  test('a worker environment typed with the platform bucket accepts ours', () => {
    interface Env {
      FILES: InHost<R2Bucket>;
    }
    const ours = {} as Bucket;
    const env: Env = { FILES: ours };
    expectTypeOf(env.FILES).toEqualTypeOf<InHost<R2Bucket>>();
  });

  test('the overloads answer what worker code expects', () => {
    const bucket = {} as Bucket;
    expectTypeOf(bucket.get('k')).resolves.toEqualTypeOf<StoredObjectBody | null>();
    expectTypeOf(bucket.get('k', { onlyIf: { etagMatches: 'x' } })).resolves.toEqualTypeOf<
      StoredObjectBody | StoredObject | null
    >();
    expectTypeOf(bucket.put('k', 'v')).resolves.toEqualTypeOf<StoredObject>();
    expectTypeOf(bucket.put('k', 'v', { onlyIf: new Headers() })).resolves.toEqualTypeOf<StoredObject | null>();
    expectTypeOf(bucket.resumeMultipartUpload('k', 'id')).toEqualTypeOf<MultipartUpload>();
  });
});

describe('values written for the platform types fit our parameters', () => {
  test('options and arguments, as published', () => {
    expectTypeOf<R2GetOptions>().toExtend<GetOptions>();
    expectTypeOf<R2PutOptions>().toExtend<Parameters<Bucket['put']>[2]>();
    expectTypeOf<R2MultipartOptions>().toExtend<MultipartOptions>();
    expectTypeOf<R2ListOptions>().toExtend<ListOptions>();
    expectTypeOf<R2Conditional>().toExtend<Conditional>();
    expectTypeOf<R2Range>().toExtend<Range>();
    expectTypeOf<R2HTTPMetadata>().toExtend<HttpMetadata>();
    expectTypeOf<R2UploadedPart[]>().toExtend<Parameters<MultipartUpload['complete']>[0]>();
  });
});

describe('our results satisfy the platform result types', () => {
  test('metadata, checksums, listings and parts, as published', () => {
    expectTypeOf<StoredObject>().toExtend<R2Object>();
    expectTypeOf<Checksums>().toExtend<R2Checksums>();
    expectTypeOf<ListResult>().toExtend<R2Objects>();
    expectTypeOf<UploadedPart>().toExtend<R2UploadedPart>();
  });

  test('bodies and uploads, with the web classes of the host', () => {
    expectTypeOf<StoredObjectBody>().toExtend<InHost<R2ObjectBody>>();
    expectTypeOf<MultipartUpload>().toExtend<InHost<R2MultipartUpload>>();
  });

  test('the list result is a union on truncated: cursor only when truncated', () => {
    const page = {} as ListResult;
    if (page.truncated) expectTypeOf(page.cursor).toEqualTypeOf<string>();
    else expectTypeOf(page).not.toHaveProperty('cursor');
  });

  test('results carry what the platform adds to the spec', () => {
    expectTypeOf<StoredObject['storageClass']>().toEqualTypeOf<string>();
    expectTypeOf<StoredObjectBody['bytes']>().returns.resolves.toEqualTypeOf<Uint8Array>();
    expectTypeOf<ReturnType<Checksums['toJSON']>['sha256']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<StoredObject>().not.toHaveProperty('body');
  });
});
