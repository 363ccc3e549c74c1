import { InvalidInputError } from '../errors';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE, type Page, type PageRequest, type SortDirection } from '../types';

export interface PageWindow<Order extends string> {
  page: number;
  per_page: number;
  offset: number;
  order: Order;
  direction: SortDirection;
}

/**
 * Checks a page request against the orderable attributes of one list and fills defaults.
 * The first entry of `orders` is the default order.
 */
export function resolvePage<Order extends string>(
  request: PageRequest<string> | undefined,
  orders: readonly [Order, ...Order[]],
  defaultDirection: SortDirection = 'asc',
): PageWindow<Order> {
  const page = request?.page ?? 1;
  const perPage = request?.per_page ?? DEFAULT_PER_PAGE;
  if (!Number.isSafeInteger(page) || page < 1) {
    throw new InvalidInputError(`page must be a whole number of at least 1, got ${page}`);
  }
  if (!Number.isSafeInteger(perPage) || perPage < 1 || perPage > MAX_PER_PAGE) {
    throw new InvalidInputError(`per_page must be a whole number from 1 to ${MAX_PER_PAGE}, got ${perPage}`);
  }
  const offset = (page - 1) * perPage;
  if (!Number.isSafeInteger(offset)) {
    throw new InvalidInputError(`page ${page} is too large`);
  }
  const order = request?.order ?? orders[0];
  if (!(orders as readonly string[]).includes(order)) {
    throw new InvalidInputError(`cannot order by ${JSON.stringify(order)}; use one of ${orders.join(', ')}`);
  }
  const direction = request?.direction?.toLowerCase() ?? defaultDirection;
  if (direction !== 'asc' && direction !== 'desc') {
    throw new InvalidInputError(`direction must be asc or desc, got ${JSON.stringify(request?.direction)}`);
  }
  return { page, per_page: perPage, offset, order: order as Order, direction };
}

export function toPage<T>(items: T[], total: number, window: PageWindow<string>): Page<T> {
  return {
    items,
    result_info: {
      page: window.page,
      per_page: window.per_page,
      count: items.length,
      total_count: total,
      total_pages: Math.ceil(total / window.per_page),
    },
  };
}
