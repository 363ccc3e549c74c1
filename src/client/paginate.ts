import { ApiError, type ApiResult } from './envelope';

type Page<T> = { success?: boolean; result?: T[] | null; result_info?: { page: number; total_pages: number } };

/** Fetches one page (1-based) of a list operation. */
export type PageFetch<T> = (page: number) => Promise<ApiResult<Page<T>>>;

/**
 * Iterates every item of a list operation, page after page, until the last page
 * (by `result_info.total_pages`) or an empty page.
 */
export async function* paginate<T>(fetchPage: PageFetch<T>): AsyncGenerator<T> {
  for (let page = 1; ; page++) {
    const { data, error, response } = await fetchPage(page);
    if (!response.ok || !data || data.success !== true) throw new ApiError(response.status, error ?? data);
    const items = data.result ?? [];
    yield* items;
    if (items.length === 0 || !data.result_info || page >= data.result_info.total_pages) return;
  }
}
