import type { PageRequest } from '../../store';
import { badRequest } from '../http/errors';

/**
 * Opaque page cursors for clients that page by cursor (the official client does on rulesets):
 * the next page's request, base64url-encoded. Stateless, so any instance can continue it.
 */
export function encodeCursor(request: Required<PageRequest<string>>): string {
  return Buffer.from(JSON.stringify([request.page, request.per_page, request.order, request.direction])).toString('base64url');
}

export function decodeCursor<Order extends string>(cursor: string, orders: readonly Order[]): Required<PageRequest<Order>> {
  try {
    const [page, perPage, order, direction] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (
      Number.isSafeInteger(page) && (page as number) >= 1 &&
      Number.isSafeInteger(perPage) && (perPage as number) >= 1 && (perPage as number) <= 100 &&
      orders.includes(order as Order) && (direction === 'ASC' || direction === 'DESC')
    ) {
      return { page: page as number, per_page: perPage as number, order: order as Order, direction };
    }
  } catch {
    // Not ours: answered below.
  }
  throw badRequest('query/cursor is not a cursor this service issued (take it from result_info.cursor)');
}
