// E2E: a cluster written for ingress-nginx is served unchanged when the
// controller runs with ingress-nginx's class names — IngressClass `nginx`
// (controller k8s.io/ingress-nginx), the legacy class annotation, and the
// documented regex rewrite (use-regex + rewrite-target /$2).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appManifest, ingressManifest, request, startStack, waitForResponse } from './harness/index.ts';

test('ingress-nginx manifests served unchanged', async (t) => {
  const { cluster, controller } = await startStack(t, {
    ingressClass: ['nginx', 'k8s.io/ingress-nginx'],
    controller: { args: ['--ingress-class', 'nginx', '--controller-class', 'k8s.io/ingress-nginx'] },
  });
  const before = controller.logs().length;
  await cluster.apply([
    appManifest({ name: 'app', replicas: 1 }),
    ingressManifest({ name: 'by-class-name', host: 'modern.test', className: 'nginx', paths: [{ path: '/', service: 'app' }] }),
    ingressManifest({ name: 'by-annotation', host: 'legacy.test', className: null, annotations: { 'kubernetes.io/ingress.class': 'nginx' }, paths: [{ path: '/', service: 'app' }] }),
    ingressManifest({ name: 'not-ours', host: 'other.test', className: 'traefik', paths: [{ path: '/', service: 'app' }] }),
    ingressManifest({ name: 'other-annotation', host: 'other-legacy.test', className: null, annotations: { 'kubernetes.io/ingress.class': 'traefik' }, paths: [{ path: '/', service: 'app' }] }),
    ingressManifest({
      name: 'rewrite', host: 'rewrite.test', className: 'nginx',
      annotations: { 'nginx.ingress.kubernetes.io/use-regex': 'true', 'nginx.ingress.kubernetes.io/rewrite-target': '/$2' },
      paths: [{ path: '/something(/|$)(.*)', pathType: 'ImplementationSpecific', service: 'app' }],
    }),
  ].join('---\n'));
  // kubectl applies in order and watches deliver in order: once the last
  // Ingress is served, the controller has seen every one before it.
  await waitForResponse(controller.http, { host: 'rewrite.test', path: '/something/' }, (r) => r.status === 200);
  await controller.waitForReload(before); // until then an old worker may answer 404 for the new hosts

  await t.test('which Ingresses are served', async () => {
    const cases = [
      { name: 'ingressClassName nginx', host: 'modern.test', status: 200 },
      { name: 'legacy annotation nginx', host: 'legacy.test', status: 200 },
      { name: 'another class name', host: 'other.test', status: 404 },
      { name: 'another legacy class', host: 'other-legacy.test', status: 404 },
    ];
    for (const row of cases) {
      assert.equal((await request(controller.http, { host: row.host })).status, row.status, row.name);
    }
  });

  await t.test('regex rewrite reaches the backend with the rewritten path', async () => {
    const cases = [
      { name: 'captured rest', path: '/something/new/path', upstream: '/new/path' },
      { name: 'query kept', path: '/something/a?b=c', upstream: '/a?b=c' },
      { name: 'bare prefix', path: '/something', upstream: '/' },
      { name: 'trailing slash', path: '/something/', upstream: '/' },
    ];
    for (const row of cases) {
      const res = await request(controller.http, { host: 'rewrite.test', path: row.path });
      assert.equal(res.status, 200, row.name);
      assert.equal(res.echo?.path, row.upstream, row.name);
    }
    assert.equal((await request(controller.http, { host: 'rewrite.test', path: '/elsewhere' })).status, 404, 'no match outside the regex');
  });
});
