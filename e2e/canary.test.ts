// E2E: canary Ingresses as ingress-nginx users write them, applied with the
// real kubectl and checked with curl: by header (always / never / a value /
// a pattern), by cookie, by weight (within binomial bounds over 1,000
// requests; weight 0 and canary-weight-total honoured), the request metrics'
// canary label, and a canary without its main Ingress not served (Warning
// Event). Once the main Ingress is live, none of it reloads NGINX: the split
// is data for Lua.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { appManifest, ingressManifest, request, startStack, waitFor, waitForResponse } from './harness/index.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';
const HOST = 'canary.test';

/** Which Deployment's pod answered a curl through NGINX: `web`, `web-canary`, or the status code otherwise. */
async function curlAnswer(http: string, headers: Readonly<Record<string, string>> = {}): Promise<string> {
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code} %header{x-pod}', '-H', `Host: ${HOST}`];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  const { stdout } = await run('curl', [...args, `${http}/`]);
  const [code, pod = ''] = stdout.trim().split(' ');
  if (code !== '200') return code ?? 'none';
  return pod.startsWith('web-canary-') ? 'web-canary' : pod.startsWith('web-') ? 'web' : `pod ${pod}`;
}

/** Canary annotations (the `canary: "true"` one included). */
function canaryIngress(annotations: Record<string, string>, name = 'web-canary', host = HOST): string {
  const all = { [`${PREFIX}/canary`]: 'true', ...Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value])) };
  return ingressManifest({ name, host, annotations: all, paths: [{ path: '/', service: 'web-canary' }] });
}

/** How many of `count` plain requests the canary answered. */
async function canaryShare(http: string, count: number): Promise<number> {
  let canary = 0;
  for (let i = 0; i < count; i += 1) {
    const res = await request(http, { host: HOST, path: '/' });
    assert.equal(res.status, 200);
    if (res.pod?.startsWith('web-canary-')) canary += 1;
  }
  return canary;
}

test('canary by header, cookie and weight, without reloads', async (t) => {
  const { cluster, controller } = await startStack(t);
  const before = controller.logs().length;
  await cluster.apply([
    appManifest({ name: 'web', replicas: 1 }),
    appManifest({ name: 'web-canary', replicas: 1 }),
    ingressManifest({ name: 'web', host: HOST, paths: [{ path: '/', service: 'web' }] }),
  ].join('---\n'));
  await waitForResponse(controller.http, { host: HOST, path: '/' }, (r) => r.status === 200);
  await controller.waitForReload(before);
  const reloads = controller.reloadCount();
  /** Applies the canary Ingress, then waits until `probe` answers `want` (Lua has the new split). */
  const applyCanary = async (annotations: Record<string, string>, probe: Record<string, string>, want: string): Promise<void> => {
    await cluster.apply(canaryIngress(annotations));
    await waitFor(`canary ${JSON.stringify(annotations)}`, async () => (((await curlAnswer(controller.http, probe)) === want) ? true : undefined), { timeoutMs: 10_000 });
  };

  await t.test('by header: always and never decide, anything else falls through to the weight (0)', async () => {
    await applyCanary({ 'canary-by-header': 'X-Canary' }, { 'X-Canary': 'always' }, 'web-canary');
    const rows: { name: string; headers: Record<string, string>; want: string }[] = [
      { name: 'always', headers: { 'X-Canary': 'always' }, want: 'web-canary' },
      { name: 'never', headers: { 'X-Canary': 'never' }, want: 'web' },
      { name: 'another value', headers: { 'X-Canary': 'maybe' }, want: 'web' },
      { name: 'no header', headers: {}, want: 'web' },
    ];
    for (const row of rows) assert.equal(await curlAnswer(controller.http, row.headers), row.want, row.name);
  });

  await t.test('by header value: only that value goes to the canary ("always" is just another value)', async () => {
    await applyCanary({ 'canary-by-header': 'X-Canary', 'canary-by-header-value': 'blue' }, { 'X-Canary': 'blue' }, 'web-canary');
    assert.equal(await curlAnswer(controller.http, { 'X-Canary': 'blue' }), 'web-canary');
    assert.equal(await curlAnswer(controller.http, { 'X-Canary': 'always' }), 'web');
  });

  await t.test('by header pattern', async () => {
    await applyCanary({ 'canary-by-header': 'X-Canary', 'canary-by-header-pattern': '^(beta|gamma)$' }, { 'X-Canary': 'gamma' }, 'web-canary');
    const rows = [{ value: 'beta', want: 'web-canary' }, { value: 'gamma', want: 'web-canary' }, { value: 'alpha', want: 'web' }, { value: 'betamax', want: 'web' }];
    for (const row of rows) assert.equal(await curlAnswer(controller.http, { 'X-Canary': row.value }), row.want, row.value);
  });

  await t.test('by cookie, after the header', async () => {
    await applyCanary({ 'canary-by-header': 'X-Canary', 'canary-by-cookie': 'cc' }, { 'Cookie': 'cc=always' }, 'web-canary');
    const rows: { name: string; headers: Record<string, string>; want: string }[] = [
      { name: 'cookie always', headers: { Cookie: 'cc=always' }, want: 'web-canary' },
      { name: 'cookie never', headers: { Cookie: 'a=1; cc=never' }, want: 'web' },
      { name: 'header never beats cookie always', headers: { 'X-Canary': 'never', 'Cookie': 'cc=always' }, want: 'web' },
      { name: 'header always beats cookie never', headers: { 'X-Canary': 'always', 'Cookie': 'cc=never' }, want: 'web-canary' },
    ];
    for (const row of rows) assert.equal(await curlAnswer(controller.http, row.headers), row.want, row.name);
  });

  await t.test('by weight: 30 of 100 within binomial bounds over 1,000 requests; 0 and weight-total honoured', async () => {
    await applyCanary({ 'canary-weight': '100' }, {}, 'web-canary');
    await applyCanary({ 'canary-weight': '0', 'canary-by-header': 'X-Canary' }, { 'X-Canary': 'always' }, 'web-canary');
    assert.equal(await canaryShare(controller.http, 200), 0, 'weight 0 sends nothing to the canary');
    // As ingress-nginx: the draw is from canary-weight-total when it is above 100 (below, from 100).
    await cluster.apply(canaryIngress({ 'canary-weight': '1000', 'canary-weight-total': '1000' }));
    await waitFor('weight 1000 of 1000 applied', async () => (((await canaryShare(controller.http, 20)) === 20) ? true : undefined), { timeoutMs: 10_000 });
    assert.equal(await canaryShare(controller.http, 200), 200, '1000 of a total of 1000 sends everything');
    await cluster.apply(canaryIngress({ 'canary-weight': '30' }));
    await waitFor('weight 30 applied', async () => (((await canaryShare(controller.http, 40)) < 40) ? true : undefined), { timeoutMs: 10_000 });
    const n = 1000;
    const share = await canaryShare(controller.http, n);
    // p = 0.3: sd = sqrt(n p (1-p)) ≈ 14.5; six standard deviations either side.
    assert.ok(share > 300 - 87 && share < 300 + 87, `${share} of ${n} went to the canary (expected about 300)`);
  });

  await t.test('the request metrics carry the canary backend as their canary label', async () => {
    assert.ok(controller.metricsUrl, 'metrics are served');
    await waitFor('a requests series with the canary label', async () => {
      const text = await (await fetch(controller.metricsUrl!)).text();
      return /nginx_ingress_controller_requests\{[^}]*host="canary\.test"[^}]*canary="default-web-canary-80"[^}]*\} \d+/u.test(text) ? true : undefined;
    }, { timeoutMs: 10_000 });
  });

  await t.test('removing the canary sends everything to the main Ingress', async () => {
    await cluster.kubectlOk(['delete', 'ingress', 'web-canary']);
    await waitFor('canary removed', async () => (((await canaryShare(controller.http, 40)) === 0) ? true : undefined), { timeoutMs: 10_000 });
  });

  await t.test('none of the above reloaded NGINX', () => {
    assert.equal(controller.reloadCount() - reloads, 0, 'canary changes reloaded NGINX');
  });

  await t.test('a canary without a main Ingress is not served, with a Warning Event', async () => {
    await cluster.apply(canaryIngress({ 'canary-weight': '100' }, 'lonely', 'lonely.test'));
    await waitFor('the CanaryWithoutMain Event', async () =>
      ((await cluster.events('involvedObject.name=lonely,type=Warning')).some((e) => e.reason === 'CanaryWithoutMain') ? true : undefined));
    assert.equal((await request(controller.http, { host: 'lonely.test', path: '/' })).status, 404);
  });
});
