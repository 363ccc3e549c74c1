import { sql, type SelectQueryBuilder } from 'kysely';
import { toCount } from '../codecs';
import { toPage, type PageWindow } from './paging';
import type { Page } from '../types';

/**
 * Runs one page of a list: the total of `filtered`, then the window's rows in the asked
 * order, ties broken by `table.id` so pages never overlap. Order names are checked against
 * each list's allowed attributes before they reach here.
 */
export async function fetchPage<DB, TB extends keyof DB, Row, Item>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  selectRows: (query: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, Row>,
  window: PageWindow<string>,
  table: string,
  toItems: (rows: Row[]) => Item[] | Promise<Item[]>,
): Promise<Page<Item>> {
  const counted = await filtered.select(sql<string | number>`count(*)`.as('total')).executeTakeFirstOrThrow();
  // The selection type of a generic builder does not resolve; the one column is known.
  const { total } = counted as { total: string | number };
  const rows = await selectRows(filtered)
    .orderBy(sql.ref(`${table}.${window.order}`), window.direction)
    .orderBy(sql.ref(`${table}.id`), window.direction)
    .limit(window.per_page)
    .offset(window.offset)
    .execute();
  return toPage(await toItems(rows), toCount(total), window);
}
