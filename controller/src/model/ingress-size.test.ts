import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { checkIngressSize, MAX_PATHS, MAX_RULES, MAX_TLS_ENTRIES, MAX_TLS_HOSTS } from './ingress-size.ts';

const REF = { namespace: 'default', name: 'app' };
const list = <T>(count: number, make: (index: number) => T): T[] => Array.from({ length: count }, (_, index) => make(index));
const rulesWithPaths = (rules: number, paths: number): unknown[] => list(rules, () => ({ http: { paths: list(paths, () => ({})) } }));

const rows: { name: string; spec: Record<string, unknown> | undefined; want: RegExp | null }[] = [
  { name: 'no spec', spec: undefined, want: null },
  { name: 'garbage lists count as empty', spec: { rules: 'x', tls: 7 }, want: null },
  { name: `${MAX_RULES} rules`, spec: { rules: rulesWithPaths(MAX_RULES, 1) }, want: null },
  { name: `${MAX_RULES + 1} rules`, spec: { rules: rulesWithPaths(MAX_RULES + 1, 0) }, want: new RegExp(`has ${MAX_RULES + 1} rules \\(at most ${MAX_RULES}\\)`) },
  { name: `${MAX_PATHS} paths over several rules`, spec: { rules: rulesWithPaths(MAX_PATHS / 10, 10) }, want: null },
  { name: `${MAX_PATHS + 1} paths over several rules`, spec: { rules: [...rulesWithPaths(MAX_PATHS / 10, 10), ...rulesWithPaths(1, 1)] },
    want: new RegExp(`has ${MAX_PATHS + 1} paths`) },
  { name: 'a rule without http counts no path', spec: { rules: [null, {}, { http: null }] }, want: null },
  { name: `${MAX_TLS_ENTRIES} tls entries`, spec: { tls: list(MAX_TLS_ENTRIES, () => ({})) }, want: null },
  { name: `${MAX_TLS_ENTRIES + 1} tls entries`, spec: { tls: list(MAX_TLS_ENTRIES + 1, () => ({})) }, want: new RegExp(`has ${MAX_TLS_ENTRIES + 1} tls entries`) },
  { name: `${MAX_TLS_HOSTS} TLS hosts`, spec: { tls: [{ hosts: list(MAX_TLS_HOSTS, String) }] }, want: null },
  { name: `${MAX_TLS_HOSTS + 1} TLS hosts over two entries`, spec: { tls: [{ hosts: list(MAX_TLS_HOSTS, String) }, { hosts: ['x'] }] },
    want: new RegExp(`has ${MAX_TLS_HOSTS + 1} TLS hosts`) },
];

void describe('checkIngressSize', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const failure = checkIngressSize(row.spec, REF);
      if (row.want === null) {
        assert.equal(failure, null);
        return;
      }
      assert.equal(failure?.reason, 'IngressTooLarge');
      assert.deepEqual(failure?.ingress, REF);
      assert.match(failure?.message ?? '', row.want);
      assert.ok((failure?.message.length ?? 0) <= 200);
    });
  }
});
