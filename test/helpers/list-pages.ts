import type { TestApp } from './test-app';

/** One page of a list endpoint as a test compares it: the IDs in order and the paging fields. */
export interface ListPage {
  ids: string[];
  has_more: boolean;
  next_cursor: string | null;
}

type ListBody = { data: Array<{ id: string }>; has_more: boolean; next_cursor: string | null };

/**
 * Every page of a list from `path` (its query included), following `next_cursor` while `has_more` is true, as a
 * client pages; at most `maxPages`. Each answer must be 200.
 */
export async function followPages(
  app: TestApp,
  headers: Record<string, string>,
  path: string,
  maxPages = 100,
): Promise<ListPage[]> {
  const pages: ListPage[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const url: string = cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path;
    const res = await app.request<ListBody>('GET', url, { headers });
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
    pages.push({ ids: res.body.data.map((r) => r.id), has_more: res.body.has_more, next_cursor: res.body.next_cursor });
    cursor = res.body.has_more ? res.body.next_cursor : null;
  } while (cursor !== null && pages.length < maxPages);
  return pages;
}
