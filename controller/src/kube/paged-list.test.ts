// listAllPages: every page in order, one list with the first page's
// resourceVersion (what the watch resumes from) and no continue token.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';

import { listAllPages } from './paged-list.ts';
import type { ListPage } from './paged-list.ts';

/** A server holding `count` objects whose resourceVersion moves on with every page it serves. */
function pagedServer(count: number): { pages: ListPage[]; listPage: (page: ListPage) => Promise<KubernetesListObject<KubernetesObject>> } {
  const names = Array.from({ length: count }, (_, i) => `o${i}`);
  const pages: ListPage[] = [];
  return {
    pages,
    listPage: async (page) => {
      pages.push(page);
      const from = page.continueToken === undefined ? 0 : Number(page.continueToken);
      const to = Math.min(from + page.limit, names.length);
      const more = to < names.length ? { _continue: String(to), remainingItemCount: names.length - to } : {};
      return {
        apiVersion: 'v1', kind: 'List',
        metadata: { resourceVersion: String(100 + pages.length), ...more },
        items: names.slice(from, to).map((name) => ({ metadata: { name } })),
      };
    },
  };
}

const rows: { name: string; count: number; limit: number; pages: number }[] = [
  { name: 'empty list: one page', count: 0, limit: 3, pages: 1 },
  { name: 'fits one page', count: 3, limit: 3, pages: 1 },
  { name: 'one object over a page', count: 4, limit: 3, pages: 2 },
  { name: 'many pages', count: 10, limit: 3, pages: 4 },
];

void describe('listAllPages', () => {
  for (const row of rows) {
    void it(row.name, async () => {
      const server = pagedServer(row.count);
      const list = await listAllPages(server.listPage, row.limit);
      assert.deepEqual(list.items.map((item) => item.metadata?.name), Array.from({ length: row.count }, (_, i) => `o${i}`));
      assert.equal(server.pages.length, row.pages);
      assert.ok(server.pages.every((page) => page.limit === row.limit));
      assert.equal(server.pages[0]?.continueToken, undefined);
      assert.equal(list.metadata?.resourceVersion, '101', 'the first page\'s resourceVersion');
      assert.equal(list.metadata?._continue, undefined);
      assert.equal(list.metadata?.remainingItemCount, undefined);
    });
  }

  void it('each page\'s work runs once the next page is asked for, on every page once', async () => {
    const server = pagedServer(10);
    const seen: string[] = [];
    const list = await listAllPages(server.listPage, 3, (items) => {
      seen.push(`page of ${items.map((item) => item.metadata?.name).join(',')} after ${server.pages.length} asked`);
    });
    assert.equal(list.items.length, 10);
    assert.deepEqual(seen, ['page of o0,o1,o2 after 2 asked', 'page of o3,o4,o5 after 3 asked', 'page of o6,o7,o8 after 4 asked', 'page of o9 after 4 asked']);
  });

  void it('a failing page fails the whole list', async () => {
    const server = pagedServer(10);
    let calls = 0;
    const failing = async (page: ListPage): Promise<KubernetesListObject<KubernetesObject>> => {
      if (++calls === 2) throw new Error('410 continue token expired');
      return server.listPage(page);
    };
    await assert.rejects(listAllPages(failing, 3), /expired/);
  });
});
