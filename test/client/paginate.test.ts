// paginate: when it asks for another page and when it stops.
import { describe, expect, it } from 'vitest';
import { ApiError, createApiClient, paginate } from '../../src/client';
import { envelope, fakeFetch } from './fake-fetch';

const account = '023e105f4ecef8ad9ca31a8372d0c353';
const zone = '9d6991f5ca85bf43524971c922c4bcfc';
const info = (page: number, total_pages: number, count: number, cursor?: string) => ({
  result_info: { page, per_page: 2, count, total_count: total_pages * 2, total_pages, ...(cursor ? { cursor } : {}) },
});

function clientWith(...answers: Response[]) {
  const fake = fakeFetch(answers);
  return { api: createApiClient({ baseUrl: 'http://api.test/client/v4', credentials: { token: 't' }, fetch: fake.fetch }), ...fake };
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const found: T[] = [];
  for await (const item of items) found.push(item);
  return found;
}

const pack = (id: string) => ({ id });

describe('paginate', () => {
  it('stops at total_pages without asking for a page past it', async () => {
    const { api, requests } = clientWith(envelope([pack('a'), pack('b')], info(1, 2, 2)), envelope([pack('c')], info(2, 2, 1)));
    const ids = await all(
      paginate((page) => api.GET('/zones/{zone_id}/ssl/certificate_packs', { params: { path: { zone_id: zone }, query: { page } } })),
    );
    expect(ids.map((p) => p.id)).toEqual(['a', 'b', 'c']);
    expect(requests.map((r) => new URL(r.url).searchParams.get('page'))).toEqual(['1', '2']);
  });

  it('stops after an empty page even when total_pages promises more', async () => {
    const { api, requests } = clientWith(envelope([pack('a')], info(1, 5, 1)), envelope([], info(2, 5, 0)));
    const ids = await all(
      paginate((page) => api.GET('/zones/{zone_id}/ssl/certificate_packs', { params: { path: { zone_id: zone }, query: { page } } })),
    );
    expect(ids.map((p) => p.id)).toEqual(['a']);
    expect(requests).toHaveLength(2);
  });

  it('stops after a list with no result_info (one page)', async () => {
    const { api, requests } = clientWith(envelope([pack('a')]));
    const ids = await all(paginate((page) => api.GET('/accounts/{account_id}/rulesets', { params: { path: { account_id: account }, query: { page } } })));
    expect(ids).toEqual([pack('a')]);
    expect(requests).toHaveLength(1);
  });

  it('follows result_info.cursor until a page comes without one', async () => {
    const { api, requests } = clientWith(
      envelope([pack('a'), pack('b')], info(1, 1, 2, 'c-1')),
      envelope([pack('c'), pack('d')], info(1, 1, 2, 'c-2')),
      envelope([pack('e')], info(1, 1, 1)),
    );
    const ids = await all(
      paginate((_page, cursor) =>
        api.GET('/accounts/{account_id}/rulesets', { params: { path: { account_id: account }, query: cursor ? { cursor } : {} } }),
      ),
    );
    expect(ids.map((p) => p.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(requests.map((r) => new URL(r.url).searchParams.get('cursor'))).toEqual([null, 'c-1', 'c-2']);
  });

  it('refuses a cursor answered twice rather than paging forever', async () => {
    const { api } = clientWith(envelope([pack('a')], info(1, 1, 1, 'same')), envelope([pack('b')], info(1, 1, 1, 'same')));
    const iteration = all(
      paginate((_page, cursor) =>
        api.GET('/accounts/{account_id}/rulesets', { params: { path: { account_id: account }, query: cursor ? { cursor } : {} } }),
      ),
    );
    await expect(iteration).rejects.toThrow(/answered the cursor it was asked with \(same\)/);
  });

  it('throws ApiError for a failed page, after yielding the pages before it', async () => {
    const { api } = clientWith(
      envelope([pack('a')], info(1, 3, 1)),
      Response.json({ result: null, success: false, errors: [{ code: 10001, message: 'Internal error' }], messages: [] }, { status: 500 }),
    );
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const item of paginate((page) =>
        api.GET('/zones/{zone_id}/ssl/certificate_packs', { params: { path: { zone_id: zone }, query: { page } } }),
      ))
        seen.push(item.id);
    })().catch((error: unknown) => error);
    expect(seen).toEqual(['a']);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(500);
    expect((failure as ApiError).codes).toEqual([10001]);
  });

  it('throws ApiError for a page answered 200 with success: false', async () => {
    const { api } = clientWith(Response.json({ result: null, success: false, errors: [{ code: 10000, message: 'Authentication error' }], messages: [] }));
    const failure = await all(
      paginate((page) => api.GET('/zones/{zone_id}/ssl/certificate_packs', { params: { path: { zone_id: zone }, query: { page } } })),
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(200);
    expect((failure as ApiError).codes).toEqual([10000]);
  });
});
