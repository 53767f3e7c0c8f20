// E2E: allow/deny lists and block lists as ingress-nginx users write them,
// applied with the real kubectl and checked with curl through real NGINX from
// different loopback source addresses (curl --interface 127.0.0.x): 403 outside
// an allow list and inside a deny list, the whitelist alias, an empty list
// annotation denying the location (503), an invalid one refusing the Ingress
// (Event) whose paths answer 503;
// the ConfigMap's allow list, block-cidrs, block-user-agents and block-referers,
// and an invalid ConfigMap list serving no Ingress rather than all of them open.
// The client address is $remote_addr. NGINX's listener is IPv4 only here
// (render takes an IPv4 listen address), so IPv6 ranges are proven by the unit
// and golden tests, not from an IPv6 client.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { appManifest, ingressManifest, startStack, waitFor, waitUntilSteady, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';
const HOST = 'acl.test';
const OPEN_HOST = 'open.test';

function configMap(data: Record<string, string>): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data }]);
}

function aclIngress(annotations: Record<string, string>, host = HOST, name = 'acl'): string {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value]));
  return ingressManifest({ name, host, annotations: prefixed, paths: [{ path: '/', service: 'web' }] });
}

/** The status of GET / on `host` from source address `from`, with extra headers. */
async function statusFrom(http: string, from: string, host: string, headers: Readonly<Record<string, string>> = {}): Promise<number> {
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code}', '--interface', from, '-H', `Host: ${host}`];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  const { stdout } = await run('curl', [...args, `${http}/`]);
  return Number(stdout.trim());
}

test('allow/deny lists and block lists, from different client addresses', async (t) => {
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config'] } });
  await cluster.apply([
    configMap({}), appManifest({ name: 'web', replicas: 1 }),
    aclIngress({ 'allowlist-source-range': '127.0.0.1/32, 10.0.0.0/8, ::1' }),
    aclIngress({}, OPEN_HOST, 'open'),
  ].join('---\n'));
  const http = controller.http;
  /** Applies `manifest`, then waits until `probe` (from, host) answers `want`. */
  const applyUntil = async (manifest: string, from: string, host: string, want: number): Promise<void> => {
    await cluster.apply(manifest);
    await waitUntilSteady(`${host} from ${from} answers ${want}`, async () => (await statusFrom(http, from, host)) === want, { timeoutMs: 15_000 });
  };
  await waitFor('the allow list is live', async () => ((await statusFrom(http, '127.0.0.2', HOST)) === 403 ? true : undefined), { timeoutMs: 20_000 });

  await t.test('allowlist-source-range: inside 200, outside 403', async () => {
    const rows = [{ from: '127.0.0.1', want: 200 }, { from: '127.0.0.2', want: 403 }, { from: '127.0.0.3', want: 403 }];
    for (const row of rows) assert.equal(await statusFrom(http, row.from, HOST), row.want, row.from);
    assert.equal(await statusFrom(http, '127.0.0.2', OPEN_HOST), 200, 'another Ingress is not restricted');
  });

  await t.test('whitelist-source-range (the old name) alone, then beside allowlist-source-range (which wins)', async () => {
    await applyUntil(aclIngress({ 'whitelist-source-range': '127.0.0.2' }), '127.0.0.1', HOST, 403);
    assert.equal(await statusFrom(http, '127.0.0.2', HOST), 200);
    await applyUntil(aclIngress({ 'allowlist-source-range': '127.0.0.3', 'whitelist-source-range': '127.0.0.2' }), '127.0.0.2', HOST, 403);
    assert.equal(await statusFrom(http, '127.0.0.3', HOST), 200);
  });

  await t.test('denylist-source-range: inside 403, others 200; checked before the allow list', async () => {
    // Each wait probes an answer only the new configuration gives.
    await applyUntil(aclIngress({ 'denylist-source-range': '127.0.0.2/32' }), '127.0.0.1', HOST, 200);
    assert.equal(await statusFrom(http, '127.0.0.2', HOST), 403);
    await applyUntil(aclIngress({ 'allowlist-source-range': '127.0.0.0/24', 'denylist-source-range': '127.0.0.3' }), '127.0.0.3', HOST, 403);
    assert.equal(await statusFrom(http, '127.0.0.2', HOST), 200, 'in the allow list, not in the deny list');
  });

  await t.test('an allow list annotation set empty denies the location (503), never open', async () => {
    await applyUntil(aclIngress({ 'allowlist-source-range': '' }), '127.0.0.1', HOST, 503);
  });

  await t.test('an invalid allow list: the Ingress is refused, with a Warning Event; its paths answer 503, never open', async () => {
    await applyUntil(aclIngress({ 'allowlist-source-range': '127.0.0.1/32,not-an-address' }), '127.0.0.2', HOST, 503);
    await waitFor('the InvalidAnnotation Event', async () =>
      ((await cluster.events('involvedObject.name=acl,type=Warning')).some((e) => e.reason === 'InvalidAnnotation') ? true : undefined));
  });

  await t.test('the ConfigMap\'s whitelist-source-range applies to every Ingress without a list of its own', async () => {
    await applyUntil(configMap({ 'whitelist-source-range': '127.0.0.1' }), '127.0.0.2', OPEN_HOST, 403);
    assert.equal(await statusFrom(http, '127.0.0.1', OPEN_HOST), 200);
    await applyUntil(aclIngress({ 'allowlist-source-range': '127.0.0.2' }), '127.0.0.2', HOST, 200);
    assert.equal(await statusFrom(http, '127.0.0.1', HOST), 403, 'the Ingress\'s own list replaces the ConfigMap\'s');
  });

  await t.test('block-cidrs: 403 everywhere, also where an allow list lets the address in', async () => {
    await applyUntil(configMap({ 'block-cidrs': '127.0.0.2/32' }), '127.0.0.3', OPEN_HOST, 200);
    assert.equal(await statusFrom(http, '127.0.0.2', OPEN_HOST), 403);
    assert.equal(await statusFrom(http, '127.0.0.2', HOST), 403, 'allowlist-source-range 127.0.0.2 does not lift block-cidrs');
    assert.equal(await statusFrom(http, '127.0.0.1', OPEN_HOST), 200);
  });

  await t.test('block-user-agents and block-referers: strings (any case) and regexes', async () => {
    await cluster.apply(configMap({ 'block-user-agents': '~*badbot, curl/1.2.3', 'block-referers': '~*\\.spam\\.example$, http://exact.example/' }));
    await waitFor('the block lists are live', async () =>
      ((await statusFrom(http, '127.0.0.1', OPEN_HOST, { 'User-Agent': 'x BadBot y' })) === 403 ? true : undefined), { timeoutMs: 15_000 });
    const rows: { name: string; headers: Record<string, string>; want: number }[] = [
      { name: 'UA matching the regex in another case', headers: { 'User-Agent': 'Mozilla/5.0 (compatible; BADBOT/2)' }, want: 403 },
      { name: 'UA the exact string in another case', headers: { 'User-Agent': 'CURL/1.2.3' }, want: 403 },
      { name: 'UA longer than the exact string', headers: { 'User-Agent': 'curl/1.2.3.4' }, want: 200 },
      { name: 'another UA', headers: { 'User-Agent': 'curl/8.0' }, want: 200 },
      { name: 'Referer matching the regex', headers: { 'Referer': 'https://www.spam.example' }, want: 403 },
      { name: 'Referer the exact string', headers: { 'Referer': 'http://exact.example/' }, want: 403 },
      { name: 'Referer near the regex', headers: { 'Referer': 'https://www.spam.example.org' }, want: 200 },
    ];
    for (const row of rows) assert.equal(await statusFrom(http, '127.0.0.1', OPEN_HOST, row.headers), row.want, row.name);
  });

  await t.test('an invalid ConfigMap list serves no Ingress rather than all of them open', async () => {
    await applyUntil(configMap({ 'block-cidrs': '127.0.0.2, not-an-address' }), '127.0.0.1', OPEN_HOST, 404);
    await controller.waitForLog((l) => JSON.stringify(l).includes('no Ingress is served until it is fixed'), { timeoutMs: 10_000 });
    await applyUntil(configMap({}), '127.0.0.1', OPEN_HOST, 200);
  });
});
