// The server table keeps one location per host + match + path, the first
// placed, whether a host holds a few locations (scanned) or many (indexed).
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { ServerTable } from './server-table.ts';
import type { Location, LocationMatch } from './types.ts';

function location(path: string, match: LocationMatch = 'prefix', backend = 'web-80'): Location {
  return {
    path, match, route: { kind: 'backend', backend, key: `- ${backend} h.example default a web ${path}` }, ingress: { namespace: 'default', name: 'a' },
    policy: {},
  };
}

/** `count` distinct prefix paths /p0, /p1, ... */
const paths = (count: number): string[] => Array.from({ length: count }, (_, i) => `/p${i}`);

// 8 is the last count scanned, 9 the first indexed; 40 adds to an index already built.
const counts = [1, 8, 9, 40];

void describe('ServerTable', () => {
  for (const count of counts) {
    void it(`${count} locations on one host: every repeat refused, the first kept`, () => {
      const table = new ServerTable();
      for (const p of paths(count)) assert.deepEqual(table.place('h.example', location(p)), { placed: true });
      for (const p of paths(count)) {
        const again = table.place('h.example', location(p, 'prefix', 'other-80'));
        assert.equal(again.placed, false, `${p} placed twice`);
        assert.equal(!again.placed && again.holder.route.kind === 'backend' && again.holder.route.backend, 'web-80');
      }
      // Another match kind with the same path text is another location.
      assert.deepEqual(table.place('h.example', location('/p0', 'exact')), { placed: true });
      const [, server] = table.toServers();
      assert.equal(server?.locations.length, count + 1);
    });

    void it(`${count} locations on one host: hasRootPrefix sees / however many came before it`, () => {
      const table = new ServerTable();
      for (const p of paths(count)) table.place('h.example', location(p));
      assert.equal(table.hasRootPrefix('h.example'), false);
      table.place('h.example', location('/'));
      assert.equal(table.hasRootPrefix('h.example'), true);
      assert.equal(table.hasRootPrefix('other.example'), false);
    });
  }

  void it('servers: catch-all first, then sorted; a host without locations still listed', () => {
    const table = new ServerTable();
    table.ensure('b.example');
    table.place('a.example', location('/'));
    assert.deepEqual(table.toServers().map((s) => [s.hostname, s.locations.length]), [['_', 0], ['a.example', 1], ['b.example', 0]]);
  });
});
