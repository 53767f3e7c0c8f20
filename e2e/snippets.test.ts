// E2E: snippets as ingress-nginx v1.15.1 governs them, through real kubectl,
// NGINX and curl. By default (allow-snippet-annotations "false",
// annotations-risk-level High) an Ingress with a configuration-snippet is not
// served (Warning Event naming the missing settings, no header), and the
// other Ingress of the same host keeps serving. With "true" and Critical the
// snippet takes effect (a response header; an auth-snippet in the auth
// subrequest of its Ingress only); one using include is refused with
// the rule in its Event and the admission denial; one NGINX refuses is left out
// (blamed by nginx -t's line) while the others reload. annotation-value-word-blocklist
// is denied by the webhook and refused by the controller.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { promisify } from 'node:util';
import {
  appManifest, freePort, ingressManifest, startStack, waitFor, waitForResponse, webhookArgs, webhookCertificateFiles, webhookConfiguration, yamlDocuments,
} from './harness/index.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';
const SNIPPET = { [`${PREFIX}/configuration-snippet`]: 'add_header X-Snippet "from-snippet" always; # a comment' };

function configMap(data: Record<string, string>): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data }]);
}

/** curl over plain HTTP: the status and the response headers (lower-cased). */
async function curl(port: number, host: string, path: string): Promise<{ status: number; headers: string }> {
  const { stdout } = await run('curl', ['-s', '-m', '5', '-D', '-', '-o', '/dev/null', '-H', `Host: ${host}`, `http://127.0.0.1:${port}${path}`]);
  return { status: Number(/^HTTP\/[\d.]+ (\d{3})/mu.exec(stdout)?.[1]), headers: stdout.toLowerCase() };
}

test('snippets: refused by default, allowed at Critical, dangerous tokens refused; the word blocklist', async (t) => {
  const tls = await webhookCertificateFiles(t);
  const webhookPort = await freePort();
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config', ...webhookArgs(webhookPort, tls)] } });
  const port = controller.ports.http;
  await cluster.apply([
    configMap({}),
    appManifest({ name: 'web', replicas: 1 }),
    ingressManifest({ name: 'plain', host: 'shop.test', paths: [{ path: '/plain', service: 'web' }] }),
    ingressManifest({ name: 'snippet', host: 'shop.test', annotations: SNIPPET, paths: [{ path: '/snippet', service: 'web' }] }),
  ].join('---\n'));
  await waitForResponse(controller.http, { host: 'shop.test', path: '/plain' }, (r) => r.status === 200);

  await t.test('by default: the snippet Ingress is not served, with an Event naming both settings; its neighbour is', async () => {
    const event = await waitFor('SnippetNotAllowed on snippet', async () =>
      (await cluster.events('involvedObject.name=snippet,type=Warning')).find((e) => e.reason === 'SnippetNotAllowed'));
    assert.match(event.message, /configuration-snippet: snippets need ConfigMap allow-snippet-annotations "true" \(is "false"\) and annotations-risk-level Critical \(is High\)/u);
    const refused = await curl(port, 'shop.test', '/snippet');
    assert.equal(refused.status, 404);
    assert.doesNotMatch(refused.headers, /x-snippet/u);
    const plain = await curl(port, 'shop.test', '/plain');
    assert.equal(plain.status, 200);
    assert.doesNotMatch(plain.headers, /x-snippet/u);
  });

  await t.test('allow-snippet-annotations "true" alone is not enough (risk level High)', async () => {
    await cluster.apply(configMap({ 'allow-snippet-annotations': 'true' }));
    const event = await waitFor('SnippetNotAllowed naming the risk level only', async () =>
      (await cluster.events('involvedObject.name=snippet,type=Warning')).find((e) => /need ConfigMap annotations-risk-level Critical \(is High\)/u.test(e.message)));
    assert.doesNotMatch(event.message, /allow-snippet-annotations/u);
    assert.equal((await curl(port, 'shop.test', '/snippet')).status, 404);
  });

  await t.test('with "true" and Critical the snippet takes effect in its own locations only', async () => {
    await cluster.apply(configMap({ 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' }));
    const served = await waitFor('the snippet header', async () => {
      const r = await curl(port, 'shop.test', '/snippet');
      return r.status === 200 && r.headers.includes('x-snippet: from-snippet') ? r : undefined;
    });
    assert.equal(served.status, 200);
    const plain = await curl(port, 'shop.test', '/plain');
    assert.equal(plain.status, 200);
    assert.doesNotMatch(plain.headers, /x-snippet/u);
  });

  await t.test('an auth-snippet acts in the auth subrequest of its Ingress', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const auth = createServer((req, res) => { seen.push(req.headers); res.writeHead(200).end('ok'); });
    await new Promise<void>((ready) => auth.listen(0, '127.0.0.1', ready));
    t.after(() => { auth.closeAllConnections(); auth.close(); });
    const url = `http://127.0.0.1:${(auth.address() as AddressInfo).port}/allow`;
    await cluster.apply([
      ingressManifest({ name: 'authed', host: 'authed.test', paths: [{ path: '/', service: 'web' }],
        annotations: { [`${PREFIX}/auth-url`]: url, [`${PREFIX}/auth-snippet`]: 'proxy_set_header X-Auth-Snippet "from-snippet";' } }),
      ingressManifest({ name: 'authed-plain', host: 'authed-plain.test', paths: [{ path: '/', service: 'web' }], annotations: { [`${PREFIX}/auth-url`]: url } }),
    ].join('---\n'));
    await waitFor('authed.test served', async () => ((await curl(port, 'authed.test', '/')).status === 200 ? true : undefined));
    await waitFor('authed-plain.test served', async () => ((await curl(port, 'authed-plain.test', '/')).status === 200 ? true : undefined));
    assert.ok(seen.some((headers) => headers['x-auth-snippet'] === 'from-snippet'), 'the auth service saw the snippet\'s header');
    seen.length = 0;
    assert.equal((await curl(port, 'authed-plain.test', '/')).status, 200);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.['x-auth-snippet'], undefined, 'another Ingress\'s auth subrequest has no snippet');
  });

  await t.test('a snippet using include is refused, naming the rule; the others keep serving', async () => {
    await cluster.apply(ingressManifest({
      name: 'evil', host: 'evil.test', annotations: { [`${PREFIX}/server-snippet`]: 'include /etc/passwd;' }, paths: [{ path: '/', service: 'web' }],
    }));
    const event = await waitFor('InvalidAnnotation on evil', async () =>
      (await cluster.events('involvedObject.name=evil,type=Warning')).find((e) => e.reason === 'InvalidAnnotation'));
    assert.match(event.message, /server-snippet: snippet refused: include is not allowed \(found "include"\)/u);
    assert.equal((await curl(port, 'evil.test', '/')).status, 404);
    assert.match((await curl(port, 'shop.test', '/snippet')).headers, /x-snippet: from-snippet/u);
  });

  await t.test('a snippet the rules pass but NGINX refuses is left out alone: the others reload', async () => {
    await cluster.apply([
      ingressManifest({ name: 'broken', host: 'broken.test', annotations: { [`${PREFIX}/server-snippet`]: 'no_such_directive on;' }, paths: [{ path: '/', service: 'web' }] }),
      ingressManifest({ name: 'later', host: 'later.test', paths: [{ path: '/', service: 'web' }] }),
    ].join('---\n'));
    const event = await waitFor('RejectedByNginx on broken', async () =>
      (await cluster.events('involvedObject.name=broken,type=Warning')).find((e) => e.reason === 'RejectedByNginx'));
    assert.match(event.message, /no_such_directive/u);
    await waitFor('later.test served', async () => ((await curl(port, 'later.test', '/')).status === 200 ? true : undefined));
    assert.equal((await curl(port, 'broken.test', '/')).status, 404);
    assert.match((await curl(port, 'shop.test', '/snippet')).headers, /x-snippet: from-snippet/u);
  });

  await t.test('with the webhook: the dangerous snippet and a blocked word are denied at kubectl apply', async () => {
    await cluster.apply([configMap({ 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical', 'annotation-value-word-blocklist': 'serviceaccount,load_module' }),
      webhookConfiguration(webhookPort, tls.ca)].join('---\n'));
    // Retried: the API server starts calling the webhook shortly after its configuration is applied.
    const lua = await waitFor('the Lua snippet denial', async () => {
      const r = await cluster.kubectl(['apply', '-f', '-'], ingressManifest({
        name: 'lua', host: 'lua.test', annotations: { [`${PREFIX}/configuration-snippet`]: 'content_by_lua_block { ngx.say("x") }' }, paths: [{ path: '/', service: 'web' }],
      }));
      return r.code !== 0 ? r : undefined;
    });
    assert.match(lua.stderr, /denied the request: .*snippet refused: \*_by_lua\* directives are not allowed/u);
    const blocked = await waitFor('the blocklist denial', async () => {
      const r = await cluster.kubectl(['apply', '-f', '-'], ingressManifest({
        name: 'blocked', host: 'blocked.test', annotations: { [`${PREFIX}/rewrite-target`]: '/var/serviceaccount' }, paths: [{ path: '/', service: 'web' }],
      }));
      return r.code !== 0 ? r : undefined;
    });
    assert.match(blocked.stderr, /denied the request: .*rewrite-target annotation contains invalid word "serviceaccount"/u);
  });

  await t.test('the word blocklist in the controller: an Ingress already stored is not served', async () => {
    // An Ingress stored before the list was set is the real case; here the webhook is removed to store one.
    await cluster.kubectlOk(['delete', 'validatingwebhookconfiguration', 'resty-ingress-admission']);
    await cluster.apply(ingressManifest({ name: 'blocked', host: 'blocked.test', annotations: { [`${PREFIX}/rewrite-target`]: '/serviceaccount' }, paths: [{ path: '/', service: 'web' }] }));
    const event = await waitFor('BlockedAnnotationValue on blocked', async () =>
      (await cluster.events('involvedObject.name=blocked,type=Warning')).find((e) => e.reason === 'BlockedAnnotationValue'));
    assert.match(event.message, /contains invalid word "serviceaccount"/u);
    assert.equal((await curl(port, 'blocked.test', '/')).status, 404);
    assert.equal((await curl(port, 'shop.test', '/plain')).status, 200);
  });
});
