import { InvalidInputError } from './errors';

export const DEFAULT_PER_PAGE = 20;
/** The most rows one page may hold; larger pages are refused rather than silently cut. */
export const MAX_PER_PAGE = 1000;

export type SortDirection = 'asc' | 'desc';

/** Paging as the API's query string has it. Direction is accepted in either case. */
export interface PageRequest<Order extends string = string> {
  page?: number;
  per_page?: number;
  order?: Order;
  direction?: SortDirection | 'ASC' | 'DESC';
}

/** The numbers the API puts in `result_info`. */
export interface ResultInfo {
  page: number;
  per_page: number;
  count: number;
  total_count: number;
  total_pages: number;
}

export interface Page<T> {
  items: T[];
  result_info: ResultInfo;
}

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
