/**
 * Handler types derived from the generated document types, keyed by operationId: a change in
 * the document that breaks a handler breaks the type check.
 */
import type { IncomingMessage } from 'node:http';
import type { operations } from '../../generated/api';
import type { BucketCredentials } from '../logpush';
import type { BucketCatalogue } from '../bucket';
import type { Store } from '../store';
import type { LiveTails } from '../tail';
import type { Principal } from './auth/credentials';
import type { ResultInfo } from './http/envelope';

export type OperationId = keyof operations;

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type PathParams<O extends OperationId> = operations[O]['parameters'] extends { path: infer P } ? P : never;
export type QueryParams<O extends OperationId> = operations[O]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;
export type RequestBody<O extends OperationId> = operations[O] extends { requestBody: infer R } ? JsonOf<NonNullable<R>> : never;
export type HeaderParams<O extends OperationId> = operations[O]['parameters'] extends { header?: infer H } ? NonNullable<H> : never;
type Responses<O extends OperationId> = operations[O]['responses'];
export type Result<O extends OperationId> = Responses<O> extends { 200: infer Ok } ? (JsonOf<Ok> extends { result: infer R } ? R : never) : never;
/** The envelope's `result_info` as the operation documents it (page- or cursor-based). */
type ResultInfoOf<O extends OperationId> = Responses<O> extends { 200: infer Ok } ? (JsonOf<Ok> extends { result_info?: infer I } ? I : never) : never;

export interface Context<O extends OperationId> {
  params: PathParams<O>;
  query: QueryParams<O>;
  body: RequestBody<O>;
  principal: Principal;
  store: Store;
  /** The bucket catalogue: the account buckets of the bucket family. */
  buckets: BucketCatalogue;
  /** S3 access keys by id (the parents of temporary credentials); their secrets never leave memory. */
  s3AccessKeys: ReadonlyMap<string, string>;
  /** The S3 credentials a log push destination in one of the platform's buckets may carry; null without S3 keys. */
  bucketCredentials: BucketCredentials | null;
  /** Live tails of deployed workers; undefined where no edge runs them. */
  tails: LiveTails | undefined;
  /**
   * The request: its headers, and for operations that take a raw body (object uploads) the body
   * stream, which nothing else has read.
   */
  request: IncomingMessage;
  /** The request path under the base path, for 404 messages. */
  path: string;
}

/** What an operation whose success is `204 No Content` answers (deletions, as the real service has them). */
export const noContent = Object.freeze({ noContent: true as const });
export type NoContent = typeof noContent;

/**
 * What an operation whose success is not JSON answers (an object's bytes): a status, headers and
 * the bytes as a stream, sent as they are read (bounded memory), or no body (a 304).
 */
export interface StreamReply {
  stream: { status: number; headers: Record<string, string>; body: ReadableStream<Uint8Array> | null };
}

export type Reply<O extends OperationId> = Responses<O> extends { 200: { content: { 'application/json': unknown } } }
  ? { result: Result<O>; result_info?: ResultInfoOf<O> }
  : Responses<O> extends { 200: unknown }
    ? StreamReply
    : NoContent;

/** A reply of any operation, as the router sends it. */
export type AnyReply = NoContent | StreamReply | { result: unknown; result_info?: ResultInfo | Record<string, unknown> };

export type Handler<O extends OperationId> = (context: Context<O>) => Promise<Reply<O>>;

/** One handler per operationId of the document: the only routing there is. */
export type Handlers = { [O in OperationId]: Handler<O> };
