// Validating admission webhooks called by the API server: allow, deny with
// the webhook's message, rule and selector matching, failure policies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { startApiServer } from './server.ts';
import { makeServingCert } from './connection.ts';
import { call } from './testing.ts';

interface Review { request: { uid: string; operation: string; object: { metadata: { annotations?: Record<string, string> } } | null; userInfo: { username: string } } }

void test('validating webhooks see matching writes and can deny them', async () => {
  // Named for the Service reference below (admission.ingress.svc) and for 127.0.0.1 (the URL one).
  const cert = await makeServingCert('admission.ingress.svc');
  const reviews: Review['request'][] = [];
  const webhook = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString()) as Review;
      reviews.push(review.request);
      const deny = review.request.object?.metadata.annotations?.deny === 'yes';
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: {
        uid: review.request.uid, allowed: !deny, ...(deny ? { status: { code: 422, message: 'annotation deny=yes is not allowed' } } : {}),
      } }));
    });
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
  const hookUrl = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}/validate`;
  const server = await startApiServer({ resolveService: (ns, name) => (ns === 'ingress' && name === 'admission' ? hookUrl.replace('/validate', '') : undefined) });
  try {
    const caBundle = Buffer.from(cert.cert).toString('base64');
    const rule = { operations: ['CREATE', 'UPDATE'], apiGroups: ['networking.k8s.io'], apiVersions: ['v1'], resources: ['ingresses'], scope: 'Namespaced' };
    server.store.create('validatingwebhookconfigurations.admissionregistration.k8s.io', { metadata: { name: 'resty' }, webhooks: [
      { name: 'by-url.resty.test', clientConfig: { url: hookUrl, caBundle }, rules: [rule], namespaceSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] } },
      { name: 'by-service.resty.test', clientConfig: { service: { namespace: 'ingress', name: 'admission', path: '/validate' }, caBundle }, rules: [{ ...rule, operations: ['DELETE'] }] },
      { name: 'unreachable-ignored.resty.test', failurePolicy: 'Ignore', clientConfig: { url: 'https://127.0.0.1:1/x' }, rules: [rule] },
      { name: 'unreachable-fails.resty.test', failurePolicy: 'Fail', clientConfig: { url: 'https://127.0.0.1:1/x' }, rules: [{ ...rule, resources: ['ingresses/status'] }] },
    ] });
    server.store.create('namespaces', { metadata: { name: 'skipped', labels: { skip: 'true' } } });
    const ingress = (name: string, annotations: Record<string, string> = {}): object => ({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name, annotations },
      spec: { rules: [{ host: 'a.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } }] } }] } });
    const ing = (ns: string): string => `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`;
    const rows: { name: string; method: string; path: string; body: object; contentType?: string; want: number; message?: RegExp; reviewed: number }[] = [
      { name: 'allowed create', method: 'POST', path: ing('default'), body: ingress('ok'), want: 201, reviewed: 1 },
      { name: 'denied create', method: 'POST', path: ing('default'), body: ingress('bad', { deny: 'yes' }), want: 422, message: /admission webhook "by-url.resty.test" denied the request: annotation deny=yes/, reviewed: 1 },
      { name: 'denied update by patch', method: 'PATCH', path: `${ing('default')}/ok`, body: { metadata: { annotations: { deny: 'yes' } } }, contentType: 'application/merge-patch+json', want: 422, reviewed: 1 },
      { name: 'namespaceSelector excludes', method: 'POST', path: ing('skipped'), body: ingress('bad', { deny: 'yes' }), want: 201, reviewed: 0 },
      { name: 'configmaps are not matched', method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: { metadata: { name: 'c', annotations: { deny: 'yes' } } }, want: 201, reviewed: 0 },
      { name: 'failurePolicy Fail on the status subresource', method: 'PUT', path: `${ing('default')}/ok/status`, body: { ...ingress('ok') }, want: 500, message: /failed calling webhook "unreachable-fails/, reviewed: 0 },
      { name: 'service reference for DELETE', method: 'DELETE', path: `${ing('default')}/ok`, body: {}, want: 200, reviewed: 1 },
    ];
    for (const row of rows) {
      reviews.length = 0;
      const res = await call(server, row.method, row.path, { body: row.body, contentType: row.contentType });
      assert.equal(res.status, row.want, `${row.name}: ${JSON.stringify(res.body)}`);
      if (row.message) assert.match(String(res.body.message), row.message, row.name);
      assert.equal(reviews.length, row.reviewed, row.name);
      if (row.reviewed) assert.equal(reviews[0].userInfo.username, 'admin', row.name);
    }
    assert.throws(() => server.store.get('ingresses.networking.k8s.io', 'default', 'bad'), (e: { code?: number }) => e.code === 404, 'a denied object is not stored');
  } finally {
    await server.stop();
    await new Promise<void>((r) => webhook.close(() => r()));
  }
});

void test('a Service\'s webhook must present a certificate for <service>.<namespace>.svc, as with a real API server', async () => {
  const rows = [
    { name: 'certificate for the Service name', host: 'admission.ingress.svc', want: 201 },
    { name: 'certificate for the address only', host: '127.0.0.1', want: 500 },
  ];
  for (const row of rows) {
    const cert = await makeServingCert(row.host);
    const webhook = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString()) as Review;
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }));
      });
    });
    await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
    const base = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}`;
    const server = await startApiServer({ resolveService: (ns, name) => (ns === 'ingress' && name === 'admission' ? base : undefined) });
    try {
      server.store.create('validatingwebhookconfigurations.admissionregistration.k8s.io', { metadata: { name: 'resty' }, webhooks: [{
        name: 'by-service.resty.test', clientConfig: { service: { namespace: 'ingress', name: 'admission', path: '/v' }, caBundle: Buffer.from(cert.cert).toString('base64') },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      }] });
      const res = await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'c' } } });
      assert.equal(res.status, row.want, `${row.name}: ${JSON.stringify(res.body)}`);
      if (row.want === 500) assert.match(String(res.body.message), /failed calling webhook "by-service\.resty\.test".*admission\.ingress\.svc/, row.name);
    } finally {
      await server.stop();
      await new Promise<void>((r) => webhook.close(() => r()));
    }
  }
});
