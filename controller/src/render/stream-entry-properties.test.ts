// Property: whatever a TCP/UDP services ConfigMap holds (hostile strings built
// to break out of an NGINX token included), an entry is either refused or
// every value of it that reaches nginx.conf fits its strict grammar, and the
// stream {} it renders holds what came from it only inside quoted tokens.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { renderConfig } from './render-config.ts';
import { goldenOptions, model } from './testdata/model-fixtures.ts';
import { parseStreamEntry } from '../model/stream-entry.ts';
import { anyString, hostileString, MARKER } from '../model/testdata/hostile-values.ts';
import type { StreamProtocol } from '../model/l4-types.ts';

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/u;

/** Values shaped like entries, with hostile pieces in every field and the marker in valid names too. */
const mostly = <T>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<T>): fc.Arbitrary<T> => fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: other, weight: 1 });
const entryValue: fc.Arbitrary<string> = fc.oneof(
  anyString,
  hostileString,
  { weight: 6, arbitrary: fc.tuple(mostly(fc.constantFrom('default', 'kube-system', `ns-${MARKER}`), hostileString),
    mostly(fc.constantFrom('echo', 'db', `svc-${MARKER}`), hostileString),
    mostly(fc.constantFrom('80', '8080', 'http', '0', '65536', `p-${MARKER}`), hostileString), fc.constantFrom('', ':PROXY', ':PROXY:PROXY', '::PROXY', ':proxy'), mostly(fc.constant(''), hostileString))
    .map(([ns, name, port, flags, tail]) => `${ns}/${name}:${port}${flags}${tail}`) },
);
const entryKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -10, max: 70_000 }).map(String) }, anyString, hostileString, fc.constantFrom('+80', '080', '9000'));

void describe('TCP/UDP services entries (property)', () => {
  void it('refused, or every field within its grammar and the rendered stream {} free of the raw value', () => {
    let accepted = 0;
    fc.assert(fc.property(entryKey, entryValue, fc.constantFrom<StreamProtocol>('TCP', 'UDP'), (key, value, protocol) => {
      const entry = parseStreamEntry(key, value, protocol);
      if (!entry.ok) return;
      accepted += 1;
      const { port, namespace, service, servicePort, proxyProtocol } = entry.value;
      assert.ok(Number.isInteger(port) && port >= 1 && port <= 65535 && String(port) === key);
      assert.ok(LABEL.test(namespace) && namespace.length <= 63);
      assert.ok(LABEL.test(service) && service.length <= 63);
      assert.ok(typeof servicePort === 'number' ? servicePort >= 1 && servicePort <= 65535 : LABEL.test(servicePort));
      if (protocol === 'UDP') assert.deepEqual(proxyProtocol, { decode: false, encode: false });
      const streams = [{ port, protocol, namespace, service, servicePort, proxyProtocol, endpoints: [{ address: '10.0.0.1', port: 80 }] }];
      const { conf } = renderConfig({ ...model([], []), streams }, goldenOptions());
      // A marker may sit inside a value that passed its grammar, but only inside a quoted token.
      const outsideQuotes = conf.slice(conf.indexOf('\nstream {')).replace(/"[^"\n\\;{}$]*"/gu, '""');
      assert.ok(!outsideQuotes.includes(MARKER), 'a hostile value reached stream {} outside a quoted token');
    }), { numRuns: 300 });
    assert.ok(accepted >= 10, `only ${accepted} of 300 generated entries were accepted: the property checked too little`);
  });
});
