// A list in pages, as client-go's reflector lists (500 objects a page).
//
// Why: one unpaged list of 10k EndpointSlices is a single multi-megabyte
// response that lives, with its chunks, its joined buffer, its text and its
// raw JSON objects, as long as the whole list takes to decode: long enough
// to survive young-generation collections and wait for a full one. At 10k
// Ingresses the controller still held ~45 MB of such response buffers when
// it became ready; paged, ~10 MB, and ~20 MB less resident memory. A page's
// garbage dies young.
//
// The pages of one list are one consistent snapshot on a real API server
// (the continue token pins the first page's resourceVersion). The list
// returned carries the first page's resourceVersion: the watch resumes from
// there, so nothing that changed while the later pages were read is missed.
// An expired continue token (410) fails the list; the informer then lists
// again from the start after its backoff.

import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';

/** client-go's page size. */
export const LIST_PAGE_SIZE = 500;

/** Which page to fetch: at most `limit` objects, after `continueToken` (undefined: the first page). */
export interface ListPage {
  readonly limit: number;
  readonly continueToken: string | undefined;
}

/** Fetches one page of a list. */
export type ListPageFn = (page: ListPage) => Promise<KubernetesListObject<KubernetesObject>>;

/**
 * Every page of a list, as one list with the first page's metadata (and no continue token).
 * `eachPage` runs on every page's items once the next page is asked for, so its work (the
 * informer trims and freezes them) overlaps the API server's on the next page.
 */
export async function listAllPages(listPage: ListPageFn, limit: number = LIST_PAGE_SIZE,
  eachPage?: (items: readonly KubernetesObject[]) => void): Promise<KubernetesListObject<KubernetesObject>> {
  const first = await listPage({ limit, continueToken: undefined });
  const items: KubernetesObject[] = [];
  let page = first;
  for (;;) {
    const next = page.metadata?._continue;
    const asked = next ? listPage({ limit, continueToken: next }) : null;
    if (asked !== null && eachPage !== undefined) {
      asked.catch(() => undefined); // awaited below; a throw of eachPage must not leave it unhandled
      await new Promise((resolve) => setImmediate(resolve)); // the request is sent before the page's work
    }
    eachPage?.(page.items);
    if (asked === null && page === first) return first;
    for (const item of page.items) items.push(item);
    if (asked === null) break;
    page = await asked;
  }
  const { _continue: _token, remainingItemCount: _remaining, ...metadata } = first.metadata ?? {};
  return { ...first, metadata, items };
}
