/**
 * Handler types derived from the generated document types, keyed by operationId: a change in
 * the document that breaks a handler breaks the type check.
 */
import type { operations } from '../../generated/api';
import type { Store } from '../store';
import type { Principal } from './auth/credentials';
import type { ResultInfo } from './http/envelope';

export type OperationId = keyof operations;

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type PathParams<O extends OperationId> = operations[O]['parameters'] extends { path: infer P } ? P : never;
export type QueryParams<O extends OperationId> = operations[O]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;
export type RequestBody<O extends OperationId> = operations[O] extends { requestBody: infer R } ? JsonOf<NonNullable<R>> : never;
type Responses<O extends OperationId> = operations[O]['responses'];
export type Result<O extends OperationId> = Responses<O> extends { 200: infer Ok } ? (JsonOf<Ok> extends { result: infer R } ? R : never) : never;

export interface Context<O extends OperationId> {
  params: PathParams<O>;
  query: QueryParams<O>;
  body: RequestBody<O>;
  principal: Principal;
  store: Store;
  /** The request path under the base path, for 404 messages. */
  path: string;
}

/** What an operation whose success is `204 No Content` answers (deletions, as the real service has them). */
export const noContent = Object.freeze({ noContent: true as const });
export type NoContent = typeof noContent;

export type Reply<O extends OperationId> = Responses<O> extends { 200: unknown }
  ? { result: Result<O>; result_info?: ResultInfo }
  : NoContent;

/** A reply of any operation, as the router sends it. */
export type AnyReply = NoContent | { result: unknown; result_info?: ResultInfo };

export type Handler<O extends OperationId> = (context: Context<O>) => Promise<Reply<O>>;

/** One handler per operationId of the document: the only routing there is. */
export type Handlers = { [O in OperationId]: Handler<O> };
