import { ApiError, type ApiResult } from './envelope';

type Page<T> = {
  success?: boolean;
  result?: T[] | null;
  result_info?: { page: number; total_pages: number; cursor?: string };
};

/**
 * Fetches one page of a list operation: by number (from 1), and, on lists that page by cursor
 * (rulesets), with the cursor the previous page gave (undefined for the first page).
 */
export type PageFetch<T> = (page: number, cursor: string | undefined) => Promise<ApiResult<Page<T>>>;

/**
 * Iterates every item of a list operation, page after page. It stops after an empty page; on a
 * page with `result_info.cursor` it asks for the next page with that cursor; otherwise it stops
 * at `result_info.total_pages` (or when there is no `result_info`: a list of one page).
 * A failed page throws ApiError, as `unwrap` does; a cursor answered twice throws an Error.
 */
export async function* paginate<T>(fetchPage: PageFetch<T>): AsyncGenerator<T> {
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const { data, error, response } = await fetchPage(page, cursor);
    if (!response.ok || !data || data.success !== true) throw new ApiError(response.status, error ?? data);
    const items = data.result ?? [];
    yield* items;
    const info = data.result_info;
    if (items.length === 0 || !info) return;
    if (typeof info.cursor === 'string' && info.cursor !== '') {
      // A cursor answered twice would page forever.
      if (info.cursor === cursor) throw new Error(`paginate: page ${page} answered the cursor it was asked with (${cursor})`);
      cursor = info.cursor;
      continue;
    }
    if (page >= info.total_pages) return;
    cursor = undefined;
  }
}
