// Allow/deny lists and block lists in the real data-plane NGINX, from IPv4
// and IPv6 client addresses: the e2e cluster's listener is IPv4 only (render
// takes an IPv4 listen address), so here the rendered conf also listens on
// [::1] (a test-only edit of the listen lines). No backend is pushed: a
// request the rules let through reaches the proxied location, which answers
// 503 (no endpoints); a refused one gets 403 from the rules.
// Fails (never skips) without the runtime: the test command runs setup first.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import { parseIngressFeatures, readSettings } from '../model/features/parse.ts';
import type { Model, Policy } from '../model/types.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { renderConfig } from './render-config.ts';
import { backend, DEFAULT_SETTINGS, goldenOptions, model, proxied, server } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx, type RunningNginx } from './testdata/nginx-runner.ts';

const PREFIX = 'nginx.ingress.kubernetes.io';
const HOST = 'acl.example.com';

const configMap = readSettings([{ metadata: { namespace: 'ingress', name: 'c' }, data: { 'block-cidrs': '127.0.0.3, 2001:db8::/32', 'block-user-agents': 'BadBot/1.0' } }], 'ingress/c');
const settings: Model['settings'] = { ...DEFAULT_SETTINGS, accessControl: configMap.settings.accessControl };

function policy(annotations: Record<string, string>): Policy {
  const parsed = parseIngressFeatures(Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${PREFIX}/${k}`, v])), PREFIX, { namespace: 'default', name: 'acl' }, settings);
  if (!parsed.ok) throw new Error(parsed.failures.map((f) => f.message).join('; '));
  return parsed.value.policy;
}

/** One request from `from` to `to` (an address NGINX listens on); its status. */
function statusOf(to: string, port: number, from: string, path: string, method = 'GET', headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: to, port, path, method, localAddress: from, headers: { host: HOST, ...headers }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

void describe('allow/deny lists in real NGINX, IPv4 and IPv6 clients', () => {
  const web = backend('default-web-80');
  const locations = [
    proxied('/v6', 'prefix', web.name, { host: HOST, policy: policy({ 'allowlist-source-range': '::1' }) }),
    proxied('/v4', 'prefix', web.name, { host: HOST, policy: policy({ 'allowlist-source-range': '127.0.0.0/30' }) }),
    proxied('/mapped', 'prefix', web.name, { host: HOST, policy: policy({ 'allowlist-source-range': '::ffff:127.0.0.1' }) }),
    proxied('/deny6', 'prefix', web.name, { host: HOST, policy: policy({ 'denylist-source-range': '::1/128' }) }),
    proxied('/cors', 'prefix', web.name, { host: HOST, policy: { ...policy({ 'allowlist-source-range': '::1' }), ...policy({ 'enable-cors': 'true', 'cors-allow-origin': 'https://app.example.com' }) } }),
    proxied('/', 'prefix', web.name, { host: HOST }),
  ];
  let nginx: RunningNginx;
  let port: number;

  before(async () => {
    port = await freePort();
    const statusPort = await freePort();
    const dataplane = findDataplane();
    const prefix = makePrefix();
    const { conf } = renderConfig(model([server(HOST, locations)], [web], settings),
      { ...goldenOptions(dataplane, prefix), httpPort: port, httpsPort: await freePort(), statusPort, workerProcesses: 1 });
    const listen = `listen "127.0.0.1:${port}"`;
    assert.ok(conf.includes(listen), 'the public listener is rendered');
    const dual = conf.replaceAll(new RegExp(`${listen}( default_server)?;`, 'gu'), (line, flag: string | undefined) => `${line}\n        listen "[::1]:${port}"${flag ?? ''};`);
    nginx = await startNginx(dataplane, prefix, dual, `http://127.0.0.1:${statusPort}/healthz`);
  });

  after(async () => {
    await nginx?.stop();
  });

  const rows: { name: string; from: string; to: string; path: string; method?: string; headers?: Record<string, string>; want: number }[] = [
    { name: 'IPv6 allow list: ::1 is let through', from: '::1', to: '::1', path: '/v6', want: 503 },
    { name: 'IPv6 allow list: an IPv4 client is refused', from: '127.0.0.1', to: '127.0.0.1', path: '/v6', want: 403 },
    { name: 'IPv4 allow list /30: 127.0.0.2 is let through', from: '127.0.0.2', to: '127.0.0.1', path: '/v4', want: 503 },
    { name: 'IPv4 allow list /30: 127.0.0.5 is refused', from: '127.0.0.5', to: '127.0.0.1', path: '/v4', want: 403 },
    { name: 'IPv4 allow list: an IPv6 client is refused', from: '::1', to: '::1', path: '/v4', want: 403 },
    { name: 'an IPv4-mapped allow list lets the IPv4 client through', from: '127.0.0.1', to: '127.0.0.1', path: '/mapped', want: 503 },
    { name: 'IPv6 deny list: ::1 is refused', from: '::1', to: '::1', path: '/deny6', want: 403 },
    { name: 'IPv6 deny list: an IPv4 client is let through', from: '127.0.0.1', to: '127.0.0.1', path: '/deny6', want: 503 },
    { name: 'block-cidrs: 127.0.0.3 is refused where no list is set', from: '127.0.0.3', to: '127.0.0.1', path: '/', want: 403 },
    { name: 'block-cidrs: 127.0.0.3 is refused inside an allow list that takes it', from: '127.0.0.3', to: '127.0.0.1', path: '/v4', want: 403 },
    { name: 'block-cidrs: others pass', from: '127.0.0.1', to: '127.0.0.1', path: '/', want: 503 },
    { name: 'block-user-agents: the exact string in another case', from: '127.0.0.1', to: '127.0.0.1', path: '/', headers: { 'user-agent': 'badbot/1.0' }, want: 403 },
    // As ingress-nginx: the preflight is answered in the rewrite phase, before the access rules.
    { name: 'CORS preflight from outside the allow list: 204 (ingress-nginx\'s order)', from: '127.0.0.1', to: '127.0.0.1', path: '/cors', method: 'OPTIONS', headers: { origin: 'https://app.example.com' }, want: 204 },
    { name: 'CORS simple request from outside the allow list: 403', from: '127.0.0.1', to: '127.0.0.1', path: '/cors', headers: { origin: 'https://app.example.com' }, want: 403 },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      assert.equal(await statusOf(row.to, port, row.from, row.path, row.method, row.headers), row.want);
    });
  }
});
