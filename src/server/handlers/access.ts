import type { Account, Page, PageRequest, Zone } from '../../store';
import { canReachAccount, canReachZone } from '../auth/credentials';
import type { ResultInfo } from '../http/envelope';
import { encodeCursor } from './cursor';
import { ApiError, Codes, notFound } from '../http/errors';
import type { Context, OperationId } from '../operations';

function forbidden(): ApiError {
  return ApiError.of(403, Codes.notAuthorized, 'Unauthorized to access requested resource');
}

/** The zone of the path: 404 when it does not exist, 403 (9109) when the credentials do not reach it. */
export async function requireZone<O extends OperationId>(context: Context<O>, zoneId: string): Promise<Zone> {
  const zone = await context.store.zones.get(zoneId);
  if (!zone) throw notFound(context.path);
  if (!canReachZone(context.principal.scope, zone.id, zone.account.id)) throw forbidden();
  return zone;
}

/** The account of the path: 404 when it does not exist, 403 (9109) when the credentials do not reach it. */
export async function requireAccount<O extends OperationId>(context: Context<O>, accountId: string): Promise<Account> {
  const account = await context.store.accounts.get(accountId);
  if (!account) throw notFound(context.path);
  if (!canReachAccount(context.principal.scope, account.id)) throw forbidden();
  return account;
}

export { forbidden };

interface PagingQuery<Order extends string> {
  page?: number;
  per_page?: number;
  order?: Order;
  direction?: 'ASC' | 'DESC';
}

export function pageRequest<Order extends string>(query: PagingQuery<Order> | undefined, defaultOrder: Order): PageRequest<Order> {
  return {
    page: query?.page ?? 1,
    per_page: query?.per_page ?? 20,
    order: query?.order ?? defaultOrder,
    direction: query?.direction ?? 'ASC',
  };
}

export function listReply<T>(page: Page<T>): { result: T[]; result_info: ResultInfo } {
  return { result: page.items, result_info: page.result_info };
}

/** Like listReply, with `result_info.cursor` for the next page when there is one. */
export function cursorListReply<T, Order extends string>(
  page: Page<T>,
  request: PageRequest<Order>,
): { result: T[]; result_info: ResultInfo & { cursor?: string } } {
  const info = page.result_info;
  const more = info.page < info.total_pages;
  const next = { page: info.page + 1, per_page: info.per_page, order: request.order ?? 'id', direction: request.direction === 'DESC' ? 'DESC' : 'ASC' } as const;
  return { result: page.items, result_info: { ...info, ...(more ? { cursor: encodeCursor(next) } : {}) } };
}
