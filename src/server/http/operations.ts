/**
 * Handler types derived from the generated document types, keyed by operationId: a change in
 * the document that breaks a handler breaks the type check.
 */
import type { operations } from '../../../generated/api';
import type { Store } from '../../store';
import type { Principal } from '../auth/credentials';
import type { ResultInfo } from './envelope';

export type OperationId = keyof operations;

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type PathParams<O extends OperationId> = operations[O]['parameters'] extends { path: infer P } ? P : never;
export type QueryParams<O extends OperationId> = operations[O]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;
export type RequestBody<O extends OperationId> = operations[O] extends { requestBody: infer R } ? JsonOf<NonNullable<R>> : never;
export type Result<O extends OperationId> = JsonOf<operations[O]['responses'][200]> extends { result: infer R } ? R : never;

export interface Context<O extends OperationId> {
  params: PathParams<O>;
  query: QueryParams<O>;
  body: RequestBody<O>;
  principal: Principal;
  store: Store;
  /** The request path under the base path, for 404 messages. */
  path: string;
}

export interface Reply<O extends OperationId> {
  result: Result<O>;
  result_info?: ResultInfo;
}

export type Handler<O extends OperationId> = (context: Context<O>) => Promise<Reply<O>>;

/** One handler per operationId of the document: the only routing there is. */
export type Handlers = { [O in OperationId]: Handler<O> };
