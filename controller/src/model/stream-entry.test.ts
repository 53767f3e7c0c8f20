import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseStreamEntry, type StreamEntry } from './stream-entry.ts';
import type { StreamProtocol } from './l4-types.ts';

interface Row {
  readonly name: string;
  readonly key: string;
  readonly value: unknown;
  readonly protocol?: StreamProtocol;
  /** The entry, or a pattern its refusal must match. */
  readonly expect: Partial<StreamEntry> | RegExp;
}

const rows: readonly Row[] = [
  { name: 'numeric Service port', key: '9000', value: 'default/echo:8080', expect: { port: 9000, namespace: 'default', service: 'echo', servicePort: 8080, proxyProtocol: { decode: false, encode: false } } },
  { name: 'named Service port', key: '5432', value: 'db/postgres:pg', expect: { port: 5432, servicePort: 'pg' } },
  { name: 'decode PROXY from the client', key: '9000', value: 'default/echo:80:PROXY', expect: { proxyProtocol: { decode: true, encode: false } } },
  { name: 'decode and send PROXY', key: '9000', value: 'default/echo:80:PROXY:PROXY', expect: { proxyProtocol: { decode: true, encode: true } } },
  { name: 'send PROXY only (empty first flag)', key: '9000', value: 'default/echo:80::PROXY', expect: { proxyProtocol: { decode: false, encode: true } } },
  { name: 'PROXY compares case-insensitively (EqualFold)', key: '9000', value: 'default/echo:80:proxy:Proxy', expect: { proxyProtocol: { decode: true, encode: true } } },
  { name: 'UDP ignores PROXY and says so', key: '53', value: 'kube-system/dns:53:PROXY', protocol: 'UDP', expect: { proxyProtocol: { decode: false, encode: false }, proxyIgnored: true } },
  { name: 'highest port', key: '65535', value: 'default/echo:80', expect: { port: 65535 } },
  { name: 'key 0', key: '0', value: 'default/echo:80', expect: /port number from 1 to 65535/ },
  { name: 'key above 65535', key: '65536', value: 'default/echo:80', expect: /port number from 1 to 65535/ },
  { name: 'key with a sign (Go Atoi takes it)', key: '+80', value: 'default/echo:80', expect: /plain decimal/ },
  { name: 'key with a leading zero', key: '080', value: 'default/echo:80', expect: /plain decimal/ },
  { name: 'negative key', key: '-1', value: 'default/echo:80', expect: /plain decimal/ },
  { name: 'named key', key: 'http', value: 'default/echo:80', expect: /plain decimal/ },
  { name: 'no Service port', key: '9000', value: 'default/echo', expect: /<namespace>\/<service>:<port>/ },
  { name: 'five fields', key: '9000', value: 'default/echo:80:PROXY:PROXY:PROXY', expect: /<namespace>\/<service>:<port>/ },
  { name: 'no namespace', key: '9000', value: 'echo:80', expect: /<namespace>\/<name>/ },
  { name: 'two slashes', key: '9000', value: 'a/b/c:80', expect: /<namespace>\/<name>/ },
  { name: 'bad namespace', key: '9000', value: 'Default/echo:80', expect: /namespace/ },
  { name: 'Service name with a dot', key: '9000', value: 'default/echo.x:80', expect: /Service name/ },
  { name: 'Service port 0', key: '9000', value: 'default/echo:0', expect: /Service port/ },
  { name: 'Service port 70000', key: '9000', value: 'default/echo:70000', expect: /Service port/ },
  { name: 'Service port name in capitals', key: '9000', value: 'default/echo:HTTP', expect: /Service port/ },
  { name: 'unknown flag after the port', key: '9000', value: 'default/echo:80:TLS', expect: /first field after the port must be PROXY or empty/ },
  { name: 'unknown second flag', key: '9000', value: 'default/echo:80:PROXY:yes', expect: /second field/ },
  { name: 'nginx syntax smuggled into the value', key: '9000', value: 'default/echo:80;\n}', expect: /Service port/ },
  { name: 'whitespace around the Service', key: '9000', value: ' default/echo:80', expect: /namespace/ },
  { name: 'not a string', key: '9000', value: 80, expect: /must be a string/ },
];

void describe('parseStreamEntry', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const result = parseStreamEntry(row.key, row.value, row.protocol ?? 'TCP');
      if (row.expect instanceof RegExp) {
        assert.equal(result.ok, false, `expected a refusal, got ${JSON.stringify(result)}`);
        if (!result.ok) assert.match(result.reason, row.expect);
        return;
      }
      assert.ok(result.ok, `expected an entry, got ${JSON.stringify(result)}`);
      for (const [field, value] of Object.entries(row.expect)) {
        assert.deepEqual(result.value[field as keyof StreamEntry], value, field);
      }
    });
  }
});
