import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeProtobuf } from './protobuf.ts';

/** Minimal protobuf writer for length-delimited and varint fields (test input only). */
function varint(n: number): Buffer {
  const out: number[] = [];
  do { out.push((n & 0x7f) | (n >= 0x80 ? 0x80 : 0)); n = Math.floor(n / 128); } while (n > 0);
  return Buffer.from(out);
}
const bytesField = (num: number, value: Buffer | string): Buffer => {
  const data = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([varint((num << 3) | 2), varint(data.length), data]);
};
const varintField = (num: number, value: number): Buffer => Buffer.concat([varint(num << 3), varint(value)]);
const envelope = (apiVersion: string, kind: string, raw: Buffer): Buffer => Buffer.concat([
  Buffer.from('k8s\0', 'binary'),
  bytesField(1, Buffer.concat([bytesField(1, apiVersion), bytesField(2, kind)])),
  bytesField(2, raw),
]);

void test('decodes a Secret as helm sends it', () => {
  const meta = Buffer.concat([bytesField(1, 'sh.helm.release.v1.r.v1'), bytesField(3, 'apps'),
    bytesField(11, Buffer.concat([bytesField(1, 'owner'), bytesField(2, 'helm')]))]);
  const secret = Buffer.concat([bytesField(1, meta), bytesField(2, Buffer.concat([bytesField(1, 'release'), bytesField(2, Buffer.from([0, 1, 255]))])),
    bytesField(3, 'helm.sh/release.v1'), varintField(5, 1)]);
  assert.deepEqual(decodeProtobuf(envelope('v1', 'Secret', secret)), {
    apiVersion: 'v1', kind: 'Secret',
    metadata: { name: 'sh.helm.release.v1.r.v1', namespace: 'apps', labels: { owner: 'helm' } },
    data: { release: Buffer.from([0, 1, 255]).toString('base64') }, type: 'helm.sh/release.v1', immutable: true,
  });
});

void test('decodes repeated messages (RBAC rules) keeping empty strings in lists', () => {
  const rule = Buffer.concat([bytesField(1, 'get'), bytesField(1, 'list'), bytesField(2, ''), bytesField(3, 'pods')]);
  const role = Buffer.concat([bytesField(1, bytesField(1, 'reader')), bytesField(2, rule)]);
  const decoded = decodeProtobuf(envelope('rbac.authorization.k8s.io/v1', 'Role', role)) as { rules: unknown };
  assert.deepEqual(decoded.rules, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]);
});

void test('bad protobuf bodies are 400s', () => {
  const rows: { name: string; body: Buffer; message: RegExp }[] = [
    { name: 'no envelope', body: Buffer.from('{"kind":"Secret"}'), message: /envelope/ },
    { name: 'unsupported kind', body: envelope('apps/v1', 'Deployment', Buffer.alloc(0)), message: /apps\/v1\/Deployment is not supported.*send JSON/ },
    { name: 'truncated field', body: Buffer.concat([envelope('v1', 'Secret', bytesField(1, 'x')).subarray(0, -1)]), message: /truncated/ },
    { name: 'truncated varint', body: Buffer.concat([Buffer.from('k8s\0', 'binary'), Buffer.from([0x08, 0x80])]), message: /truncated/ },
  ];
  for (const row of rows) {
    assert.throws(() => decodeProtobuf(row.body), (e: { code?: number; message?: string }) => e.code === 400 && row.message.test(e.message ?? ''), row.name);
  }
});
