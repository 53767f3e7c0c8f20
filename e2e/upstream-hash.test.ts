// E2E: consistent hashing (upstream-hash-by, -subset, -subset-size) and
// load-balance as ingress-nginx users write them, applied with the real
// kubectl through the real NGINX: the same URI keeps its pod over 20 requests
// while URIs spread over the pods; scaling 4 → 3 moves only the keys of the pod
// that went; a subset of 2 sends one URI to exactly 2 pods; switching to
// load-balance ewma and back spreads a URI again. Once the Ingress is live,
// none of it reloads NGINX: the hash and the algorithm are data for Lua.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appManifest, ingressManifest, request, startStack, waitFor, waitForResponse, yamlDocuments } from './harness/index.ts';

const PREFIX = 'nginx.ingress.kubernetes.io';
const HOST = 'hash.test';
const URIS = Array.from({ length: 48 }, (_, i) => `/item/${i}?page=${i % 7}`);

function configMap(data: Record<string, string>): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data }]);
}

/** What Lua holds for the web backend: [algorithm, hash]. */
async function luaBackend(statusUrl: string): Promise<[string, unknown]> {
  const loaded = (await (await fetch(`${statusUrl}/configuration/backends`)).json()) as { name: string; loadBalance: string; hash?: unknown }[];
  const web = loaded.find((b) => b.name === 'default-web-80');
  return [web?.loadBalance ?? 'none', web?.hash ?? null];
}

function webIngress(annotations: Record<string, string>): string {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value]));
  return ingressManifest({ name: 'web', host: HOST, annotations: prefixed, paths: [{ path: '/', service: 'web' }] });
}

/** The pod that answers `path` (status code otherwise). */
async function podFor(http: string, path: string): Promise<string> {
  const res = await request(http, { host: HOST, path });
  return res.status === 200 && res.pod !== null ? res.pod : `status ${res.status}`;
}

/** The pods answering `count` requests of one path. */
async function podsOf(http: string, path: string, count: number): Promise<Set<string>> {
  const pods = new Set<string>();
  for (let i = 0; i < count; i++) pods.add(await podFor(http, path));
  return pods;
}

/** The pod of every URI, once each. */
async function mapping(http: string): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  for (const uri of URIS) map.set(uri, await podFor(http, uri));
  return map;
}

test('upstream-hash-by and load-balance through NGINX, without reloads', async (t) => {
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config'] } });
  const before = controller.logs().length;
  await cluster.apply([configMap({}), appManifest({ name: 'web', replicas: 4 }), webIngress({})].join('---\n'));
  await waitForResponse(controller.http, { host: HOST, path: '/' }, (r) => r.status === 200);
  await controller.waitForReload(before);
  const reloads = controller.reloadCount();
  // Round robin: 4 ready pods answer one URI in turn.
  await waitFor('4 pods behind the Service', async () => ((await podsOf(controller.http, '/', 12)).size === 4 ? true : undefined), { timeoutMs: 20_000 });

  await t.test('hash by $request_uri: a URI keeps its pod over 20 requests, URIs spread', async () => {
    await cluster.apply(webIngress({ 'upstream-hash-by': '$request_uri' }));
    await waitFor('Lua holds the hash', async () => ((await luaBackend(controller.statusUrl))[1] !== null ? true : undefined));
    assert.deepEqual(await luaBackend(controller.statusUrl), ['round_robin', { by: '$request_uri', subsetSize: null }]);
    await waitFor('the hash applied (one URI, one pod)', async () => ((await podsOf(controller.http, '/applied', 8)).size === 1 ? true : undefined), { timeoutMs: 10_000 });
    for (const uri of URIS.slice(0, 5)) {
      const pods = await podsOf(controller.http, uri, 20);
      assert.equal(pods.size, 1, `${uri}: ${[...pods].join(', ')}`);
    }
    const spread = new Set((await mapping(controller.http)).values());
    assert.ok(spread.size >= 3, `${URIS.length} URIs on ${[...spread].join(', ')}`);
    assert.ok([...spread].every((pod) => pod.startsWith('web-')), [...spread].join(', '));
  });

  await t.test('scaling 4 → 3 moves only the keys of the pod that went', async () => {
    const four = await mapping(controller.http);
    const podsBefore = new Set(four.values());
    assert.equal(podsBefore.size, 4, `before: ${[...podsBefore].join(', ')}`);
    await cluster.kubectlOk(['scale', 'deployment/web', '--replicas=3']);
    const three = await waitFor('3 pods answer', async () => {
      const now = await mapping(controller.http);
      const pods = new Set(now.values());
      return pods.size === 3 && [...pods].every((pod) => podsBefore.has(pod)) ? now : undefined;
    }, { timeoutMs: 20_000 });
    const remaining = new Set(three.values());
    const gone = [...podsBefore].filter((pod) => !remaining.has(pod));
    assert.equal(gone.length, 1, `gone: ${gone.join(', ')}`);
    const moved = URIS.filter((uri) => four.get(uri) !== three.get(uri));
    assert.deepEqual(moved.filter((uri) => four.get(uri) !== gone[0]), [], 'keys of the pods that stayed kept their pod');
    assert.deepEqual(moved, URIS.filter((uri) => four.get(uri) === gone[0]), 'every key of the pod that went moved');
    assert.ok(moved.length > 0, 'the pod that went had keys');
  });

  await t.test('subset of 2: one URI reaches exactly 2 pods, and always the same 2', async () => {
    await cluster.apply(webIngress({ 'upstream-hash-by': '$request_uri', 'upstream-hash-by-subset': 'true', 'upstream-hash-by-subset-size': '2' }));
    await waitFor('subsets applied (one URI, two pods)', async () => ((await podsOf(controller.http, '/applied', 24)).size === 2 ? true : undefined), { timeoutMs: 10_000 });
    for (const uri of URIS.slice(0, 4)) {
      const first = await podsOf(controller.http, uri, 24);
      const again = await podsOf(controller.http, uri, 24);
      assert.equal(first.size, 2, `${uri}: ${[...first].join(', ')}`);
      assert.deepEqual([...again].sort(), [...first].sort(), uri);
    }
  });

  await t.test('load-balance ewma, then round_robin, in place of the hash: a URI spreads again', async () => {
    await cluster.apply(webIngress({ 'load-balance': 'ewma' }));
    // Not "several pods" alone: the subset of 2 before it already spreads one URI over two.
    await waitFor('Lua holds ewma without a hash', async () => ((await luaBackend(controller.statusUrl)).join() === 'ewma,' ? true : undefined), { timeoutMs: 10_000 });
    await waitFor('ewma applied (one URI, all 3 pods)', async () => ((await podsOf(controller.http, '/applied', 24)).size === 3 ? true : undefined), { timeoutMs: 10_000 });
    await cluster.apply(webIngress({ 'load-balance': 'round_robin' }));
    await waitFor('round_robin applied (3 pods in turn)', async () => ((await podsOf(controller.http, '/applied', 9)).size === 3 ? true : undefined), { timeoutMs: 10_000 });
    assert.deepEqual(await luaBackend(controller.statusUrl), ['round_robin', null]);
  });

  await t.test('load-balance in the ConfigMap applies to an Ingress without the annotation', async () => {
    await cluster.apply(webIngress({}));
    await cluster.apply(configMap({ 'load-balance': 'ewma' }));
    await waitFor('Lua holds ewma', async () => ((await luaBackend(controller.statusUrl))[0] === 'ewma' ? true : undefined));
    assert.equal((await podFor(controller.http, '/')).startsWith('web-'), true);
  });

  await t.test('none of the above reloaded NGINX', () => {
    assert.equal(controller.reloadCount() - reloads, 0, 'hash and load-balance changes reloaded NGINX');
  });

  await t.test('below annotations-risk-level High, upstream-hash-by is refused with a Warning Event', async () => {
    await cluster.apply(configMap({ 'annotations-risk-level': 'Medium' }));
    await cluster.apply(webIngress({ 'upstream-hash-by': '$request_uri' }));
    await waitFor('the RiskyAnnotation Event', async () =>
      ((await cluster.events('involvedObject.name=web,type=Warning')).some((e) => e.reason === 'RiskyAnnotation') ? true : undefined), { timeoutMs: 15_000 });
  });
});
