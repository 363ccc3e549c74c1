import type { ResultInfo } from '../http/envelope';

/** One filter of a previous-WAF list: the query value sent, and whether an item matches it. */
export interface ListFilter<T> {
  value: string | undefined;
  matches(item: T, value: string): boolean;
}

export interface ListQuery<Order extends string> {
  match?: 'any' | 'all';
  order?: Order;
  direction?: 'asc' | 'desc';
  page?: number;
  per_page?: number;
}

export const contains =
  <T>(field: (item: T) => string) =>
  (item: T, value: string): boolean =>
    field(item).toLowerCase().includes(value.toLowerCase());

export const equals =
  <T>(field: (item: T) => string) =>
  (item: T, value: string): boolean =>
    field(item) === value;

/**
 * The previous WAF's lists (small, fixed catalogues per zone) filtered, ordered and paged in
 * memory: `match=all` (the default) keeps items every filter sent accepts, `match=any` items
 * one of them accepts; without `order` the catalogue's order stands.
 */
export function listPage<T, Order extends string>(
  items: readonly T[],
  filters: readonly ListFilter<T>[],
  query: ListQuery<Order>,
  sortKey: (item: T, order: Order) => string | number,
): { result: T[]; result_info: ResultInfo } {
  const sent = filters.filter((f): f is ListFilter<T> & { value: string } => f.value !== undefined);
  const kept = items.filter((item) => {
    if (sent.length === 0) return true;
    const results = sent.map((f) => f.matches(item, f.value));
    return query.match === 'any' ? results.some(Boolean) : results.every(Boolean);
  });
  const { order } = query;
  if (order !== undefined) {
    const sign = query.direction === 'desc' ? -1 : 1;
    kept.sort((a, b) => {
      const [x, y] = [sortKey(a, order), sortKey(b, order)];
      return sign * (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)));
    });
  } else if (query.direction === 'desc') {
    kept.reverse();
  }
  const page = query.page ?? 1;
  const perPage = query.per_page ?? 20;
  const result = kept.slice((page - 1) * perPage, page * perPage);
  return {
    result,
    result_info: { page, per_page: perPage, count: result.length, total_count: kept.length, total_pages: Math.ceil(kept.length / perPage) },
  };
}
