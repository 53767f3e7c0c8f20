// E2E: annotations resty-ingress does not support, as a user meets them. One
// that asks for protection (enable-modsecurity: a WAF) keeps its Ingress from being served —
// its paths answer 503, the other Ingresses of the host keep working — with a Warning Event, the
// metric, and a denial from the admission webhook. A misspelt one is served
// without it, with a Warning Event, the metric and an admission warning.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  appManifest, freePort, ingressManifest, request, startStack, waitFor, waitForResponse, webhookArgs, webhookCertificateFiles, webhookConfiguration,
} from './harness/index.ts';

const PREFIX = 'nginx.ingress.kubernetes.io';

test('unsupported annotations: protective ones fail closed, the others warn', async (t) => {
  const tls = await webhookCertificateFiles(t);
  const webhookPort = await freePort();
  const { cluster, controller } = await startStack(t, { controller: { args: webhookArgs(webhookPort, tls) } });
  await cluster.apply([
    appManifest({ name: 'web', replicas: 1 }),
    ingressManifest({ name: 'public', host: 'shop.test', paths: [{ path: '/public', service: 'web' }] }),
    ingressManifest({ name: 'admin', host: 'shop.test', annotations: { [`${PREFIX}/enable-modsecurity`]: 'true' }, paths: [{ path: '/admin', service: 'web' }] }),
    ingressManifest({ name: 'typo', host: 'typo.test', annotations: { [`${PREFIX}/proxy-body-sise`]: '8m' }, paths: [{ path: '/', service: 'web' }] }),
  ].join('---\n'));
  await waitForResponse(controller.http, { host: 'typo.test', path: '/' }, (r) => r.status === 200);
  await waitForResponse(controller.http, { host: 'shop.test', path: '/public' }, (r) => r.status === 200);

  await t.test('the Ingress asking for a WAF is not served (its paths answer 503); its host\'s other Ingress is', async () => {
    assert.equal((await request(controller.http, { host: 'shop.test', path: '/admin' })).status, 503, 'never served open without its WAF');
    assert.equal((await request(controller.http, { host: 'shop.test', path: '/public' })).status, 200);
  });

  await t.test('the misspelt annotation\'s Ingress is served', async () => {
    assert.equal((await request(controller.http, { host: 'typo.test', path: '/' })).status, 200);
  });

  await t.test('each gets a Warning Event naming the annotation', async () => {
    const rows = [
      { ingress: 'admin', reason: 'ProtectionNotSupported', message: /enable-modsecurity asks for a protection/ },
      { ingress: 'typo', reason: 'UnknownAnnotation', message: /proxy-body-sise is not an annotation/ },
    ];
    for (const row of rows) {
      const event = await waitFor(`${row.reason} on ${row.ingress}`, async () =>
        (await cluster.events(`involvedObject.name=${row.ingress},type=Warning`)).find((e) => e.reason === row.reason));
      assert.match(event.message, row.message);
    }
  });

  await t.test('the metric names both', async () => {
    assert.ok(controller.metricsUrl, 'metrics are served');
    const text = await (await fetch(controller.metricsUrl)).text();
    assert.match(text, /resty_ingress_unsupported_annotations\{namespace="default",ingress="admin",annotation="nginx\.ingress\.kubernetes\.io\/enable-modsecurity"[^}]*\} 1/u);
    assert.match(text, /resty_ingress_unsupported_annotations\{namespace="default",ingress="typo",annotation="nginx\.ingress\.kubernetes\.io\/proxy-body-sise"[^}]*\} 1/u);
  });

  await t.test('with the webhook: kubectl apply is denied for the protective one, warned for the typo', async () => {
    await cluster.apply(webhookConfiguration(webhookPort, tls.ca));
    const denied = await cluster.kubectl(['apply', '-f', '-'], ingressManifest({
      name: 'admin2', host: 'shop.test', annotations: { [`${PREFIX}/enable-modsecurity`]: 'true' }, paths: [{ path: '/admin2', service: 'web' }],
    }));
    assert.notEqual(denied.code, 0, 'an Ingress that would be served open is refused');
    assert.match(denied.stderr, /denied the request: .*enable-modsecurity asks for a protection/);
    const warned = await cluster.kubectl(['apply', '-f', '-'], ingressManifest({
      name: 'typo2', host: 'typo2.test', annotations: { [`${PREFIX}/rewrite-targett`]: '/' }, paths: [{ path: '/', service: 'web' }],
    }));
    assert.equal(warned.code, 0, warned.stderr);
    assert.match(warned.stderr, /Warning: .*rewrite-targett is not an annotation/);
  });
});
