// E2E: a reload NGINX refuses never takes traffic down. The controller runs on
// its own copy of the data-plane runtime; the test breaks that copy's Lua
// module on disk (as a bad package upgrade would), so the next `nginx -t`
// fails with NGINX's own error (it runs although the change carries no
// snippet: the module files are no longer those the master loaded). The
// running NGINX keeps the last good configuration, /metrics says
// config_last_reload_successful 0, and the changed Ingress gets a Warning
// Event with NGINX's text. Once the file is back, the next change reloads and
// everything is live.
import assert from 'node:assert/strict';
import { cp, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../controller/src/nginx/dataplane.ts';
import { appManifest, ingressClassManifest, ingressManifest, request, startCluster, startController, waitFor, waitForResponse } from './harness/index.ts';

async function metric(url: string, name: string): Promise<number | null> {
  const text = await (await fetch(url)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('a refused reload keeps the last good config, shows in metrics and as a Warning Event', async (t) => {
  const runtime = await mkdtemp(join(tmpdir(), 'resty-e2e-runtime-'));
  t.after(() => rm(runtime, { recursive: true, force: true }));
  await cp(join(repoRoot(), '.cache/dataplane'), runtime, { recursive: true, verbatimSymlinks: true });
  const module = join(runtime, 'usr/lib/nginx/modules/ngx_http_lua_module.so');

  const cluster = await startCluster();
  t.after(() => cluster.stop());
  await cluster.apply([ingressClassManifest(), appManifest({ name: 'web', replicas: 1 }),
    ingressManifest({ name: 'good', host: 'good.test', paths: [{ path: '/', service: 'web' }] })].join('---\n'));
  const controller = await startController(cluster, { env: { RESTY_DATAPLANE_ROOT: runtime } });
  t.after(() => controller.stop());
  await waitForResponse(controller.http, { host: 'good.test' }, (r) => r.status === 200);
  assert.ok(controller.metricsUrl, 'metrics are served');
  const metrics = `${controller.metricsUrl}`;
  const successful = 'nginx_ingress_controller_config_last_reload_successful';
  assert.equal(await metric(metrics, successful), 1);

  // The running processes keep the module they loaded (the old inode); a new `nginx -t` cannot load it.
  await rename(module, `${module}.moved`);
  await writeFile(module, 'not an ELF file');
  await cluster.apply(ingressManifest({ name: 'blocked', host: 'blocked.test', paths: [{ path: '/', service: 'web' }] }));

  await waitFor('config_last_reload_successful 0', async () => ((await metric(metrics, successful)) === 0 ? true : undefined), { timeoutMs: 15_000 });
  const warning = await waitFor('a ReloadFailed Warning on the changed Ingress', async () => (await cluster.events('involvedObject.name=blocked,type=Warning'))
    .find((e) => e.reason === 'ReloadFailed'), { timeoutMs: 10_000 });
  assert.match(warning.message, /ngx_http_lua_module\.so/, `NGINX's own error text: ${warning.message}`);
  // The change carried no snippet, yet nginx -t ran: a running master would not read the replaced
  // module file again (module-files.ts), so a reload skips nginx -t only while the files are the master's.
  assert.ok(controller.logs().some((e) => /^module files changed on disk/.test(String(e.msg))), 'nginx -t ran because the module file changed');
  assert.equal((await request(controller.http, { host: 'good.test' })).status, 200, 'the last good configuration keeps serving');
  assert.equal((await request(controller.http, { host: 'blocked.test' })).status, 404, 'the refused change is not live');

  // Repaired: the next change reloads, and both waiting Ingresses go live.
  await rm(module);
  await rename(`${module}.moved`, module);
  const before = controller.logs().length;
  await cluster.apply(ingressManifest({ name: 'after', host: 'after.test', paths: [{ path: '/', service: 'web' }] }));
  await waitForResponse(controller.http, { host: 'after.test' }, (r) => r.status === 200, 15_000);
  await controller.waitForReload(before); // until then an old worker may answer 404 for blocked.test
  assert.equal((await request(controller.http, { host: 'blocked.test' })).status, 200);
  // NGINX serves the new version a moment before the controller has confirmed it.
  await waitFor('config_last_reload_successful 1', async () => ((await metric(metrics, successful)) === 1 ? true : undefined), { timeoutMs: 10_000 });
});
