// The largest Ingresses the API server accepts (objects up to ~1.5 MiB, JSON
// request bodies up to 3 MiB), reviewed as the webhook reviews them. Each
// review must finish promptly: the times are printed (the goal is < 100 ms);
// the assertions only bound them generously, so a loaded machine does not
// fail them but quadratic work (80k hosts took ~6 s) does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { V1Ingress } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Agent, fetch } from 'undici';
import { makeServingCert } from '../../../e2e/cluster/apiserver/connection.ts';
import { MAX_PATHS, MAX_RULES, MAX_TLS_ENTRIES, MAX_TLS_HOSTS } from '../model/ingress-size.ts';
import { translateRules } from '../model/ingress-rules.ts';
import { readIngressTls, resolveTls } from '../model/tls-hosts.ts';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import { DEFAULT_OPTIONS, deepFreeze, service, snapshot } from '../model/testdata/fixtures.ts';
import { reviewAdmission } from './admission-review.ts';
import { DEFAULT_MAX_BODY_BYTES, startWebhookServer, WEBHOOK_PATH, type WebhookServer } from './webhook-server.ts';

/** Far above the goal, far below what quadratic work takes at these sizes. */
const BOUND_MS = 2000;
const OBJECT_BYTES = 1.5 * 1024 * 1024;
const REF = Object.freeze({ namespace: 'default', name: 'big' });
const BACKEND = Object.freeze({ service: { name: 'web', port: { number: 80 } } });
const CLUSTER = deepFreeze(snapshot({ services: [service('web', [{ port: 80 }])] }));

const range = (count: number): number[] => Array.from({ length: count }, (_, index) => index);

/** As many items as fit in `bytes` of JSON. */
function fill<T>(bytes: number, make: (index: number) => T): T[] {
  const items: T[] = [];
  for (let size = 0, index = 0; ; index++) {
    const item = make(index);
    size += JSON.stringify(item).length + 1;
    if (size > bytes) return items;
    items.push(item);
  }
}

function ingressWith(spec: Record<string, unknown>): V1Ingress {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { ...REF }, spec: { ingressClassName: 'nginx', ...spec } };
}

function reviewBody(object: V1Ingress, oldObject?: V1Ingress): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
    request: {
      uid: 'u', kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' }, namespace: REF.namespace, name: REF.name,
      operation: oldObject ? 'UPDATE' : 'CREATE', object, ...(oldObject ? { oldObject } : {}),
    },
  });
}

/** Parses and reviews `body` as the webhook does; the time includes JSON.parse. */
function review(body: string): { allowed: boolean; message: string; ms: number } {
  const started = performance.now();
  const reply = reviewAdmission(JSON.parse(body), CLUSTER, { ...DEFAULT_OPTIONS, now: Date.now() });
  const ms = performance.now() - started;
  assert.equal(reply.status, 200);
  if (reply.status !== 200) throw new Error('unreachable');
  return { allowed: reply.decision.allowed, message: reply.decision.message, ms };
}

const hostRule = (index: number): unknown => ({ host: `h${index}.example.com` });
const pathRule = (index: number): unknown => ({ host: `h${index}.example.com`, http: { paths: [{ path: '/', pathType: 'Prefix', backend: BACKEND }] } });

void describe('the model is linear in hosts (no size bound in the way)', () => {
  const HOSTS = 80_000;
  void it(`translateRules: ${HOSTS} rule hosts`, () => {
    const ingress = ingressWith({ rules: range(HOSTS).map(hostRule) });
    const started = performance.now();
    const rules = translateRules(ingress, REF, { policy: {}, dynamic: {} }, DEFAULT_SETTINGS);
    const ms = performance.now() - started;
    console.log(`translateRules, ${HOSTS} hosts: ${ms.toFixed(0)} ms`);
    assert.equal(rules.hosts.length, HOSTS);
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });

  void it(`readIngressTls and resolveTls: ${HOSTS} TLS hosts and rule hosts, ${MAX_TLS_ENTRIES} entries`, () => {
    const hosts = range(HOSTS).map((index) => `h${index}.example.com`);
    const entries = [{ secretName: 'main', hosts }, ...range(MAX_TLS_ENTRIES - 1).map((index) => ({ secretName: `s${index}` }))];
    const ruleHosts = range(HOSTS).map((index) => `r${index}.example.com`);
    const started = performance.now();
    const { tls } = readIngressTls(ingressWith({ tls: entries }), REF, ruleHosts);
    const resolved = resolveTls([tls], [], {});
    const ms = performance.now() - started;
    console.log(`readIngressTls + resolveTls, ${HOSTS} TLS hosts, ${HOSTS} rule hosts, ${MAX_TLS_ENTRIES} entries: ${ms.toFixed(0)} ms`);
    assert.equal(tls.entries[0]?.hosts.length, HOSTS);
    assert.equal(resolved.failures.filter((failure) => failure.reason === 'InvalidCertificate').length, 1, 'one failure for the missing Secret');
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });
});

void describe('admission review of the largest Ingresses the API server accepts', () => {
  const largest: { name: string; spec: () => Record<string, unknown> }[] = [
    { name: 'rule hosts without paths', spec: () => ({ rules: fill(OBJECT_BYTES, hostRule) }) },
    { name: 'rule hosts with a path each', spec: () => ({ rules: fill(OBJECT_BYTES, pathRule) }) },
    { name: 'one host, many paths', spec: () => ({ rules: [{ host: 'a.example.com', http: { paths: fill(OBJECT_BYTES, (index) => ({ path: `/p${index}`, pathType: 'Prefix', backend: BACKEND })) } }] }) },
    { name: 'TLS hosts in one entry', spec: () => ({ rules: [{ host: 'a.example.com' }], tls: [{ secretName: 'tls', hosts: fill(OBJECT_BYTES, (index) => `h${index}.example.com`) }] }) },
    { name: 'TLS entries', spec: () => ({ rules: [{ host: 'a.example.com' }], tls: fill(OBJECT_BYTES, (index) => ({ secretName: `s${index}` })) }) },
  ];
  for (const row of largest) {
    void it(`${row.name}: ~1.5 MiB, refused as too large, promptly`, () => {
      const body = reviewBody(ingressWith(row.spec()));
      const result = review(body);
      console.log(`${row.name} (${(body.length / 1048576).toFixed(2)} MiB): ${result.ms.toFixed(1)} ms`);
      assert.equal(result.allowed, false);
      assert.match(result.message, /spec: Ingress has \d+ .*\(at most \d+.*\); split it into several Ingresses/);
      assert.ok(result.ms < BOUND_MS, `${result.ms} ms`);
    });
  }

  void it('an UPDATE of two such objects (object and oldObject): refused as promptly', () => {
    const spec = { rules: fill(OBJECT_BYTES, hostRule) };
    const body = reviewBody(ingressWith(spec), ingressWith(spec));
    const result = review(body);
    console.log(`UPDATE (${(body.length / 1048576).toFixed(2)} MiB): ${result.ms.toFixed(1)} ms`);
    assert.equal(result.allowed, false);
    assert.ok(result.ms < BOUND_MS, `${result.ms} ms`);
  });

  void it(`at every bound at once (${MAX_RULES} hosts, ${MAX_PATHS} paths, ${MAX_TLS_ENTRIES} tls entries, ${MAX_TLS_HOSTS} TLS hosts): allowed, promptly`, () => {
    const perEntry = MAX_TLS_HOSTS / MAX_TLS_ENTRIES;
    const tls = range(MAX_TLS_ENTRIES).map((entry) => ({ hosts: range(perEntry).map((index) => `h${entry * perEntry + index}.example.com`) }));
    const body = reviewBody(ingressWith({ rules: range(MAX_RULES).map(pathRule), tls }));
    const result = review(body);
    console.log(`at the bounds (${(body.length / 1048576).toFixed(2)} MiB): ${result.ms.toFixed(1)} ms`);
    assert.equal(result.allowed, true, result.message);
    assert.ok(result.ms < BOUND_MS, `${result.ms} ms`);
  });

  void it('one past a bound is refused naming it', () => {
    const result = review(reviewBody(ingressWith({ rules: [{ host: 'a.example.com', http: { paths: range(MAX_PATHS + 1).map((index) => ({ path: `/p${index}`, pathType: 'Prefix', backend: BACKEND })) } }] })));
    assert.match(result.message, new RegExp(`Ingress has ${MAX_PATHS + 1} paths \\(at most ${MAX_PATHS} in all rules\\)`));
  });
});

void describe('the webhook server takes the largest review and bounds the rest', () => {
  let server: WebhookServer;
  let ca: string;

  before(async () => {
    const cert = await makeServingCert('127.0.0.1');
    ca = cert.cert;
    server = await startWebhookServer({
      host: '127.0.0.1', port: 0, certPem: cert.cert, keyPem: cert.key, logger: pino({ level: 'silent' }),
      review: (body) => reviewAdmission(body, CLUSTER, { ...DEFAULT_OPTIONS, now: Date.now() }),
    });
  });
  after(() => server.close());

  const post = (body: string): Promise<{ status: number; text: string }> =>
    fetch(`https://127.0.0.1:${server.port}${WEBHOOK_PATH}`, {
      method: 'POST', body, headers: { 'Content-Type': 'application/json' }, dispatcher: new Agent({ connect: { ca } }),
    }).then(async (res) => ({ status: res.status, text: await res.text() }));

  void it('an UPDATE of two 3 MiB Ingresses (the API server\'s request limit) is reviewed, not cut off', async () => {
    const spec = { rules: fill(3 * 1024 * 1024, hostRule) };
    const body = reviewBody(ingressWith(spec), ingressWith(spec));
    assert.ok(body.length < DEFAULT_MAX_BODY_BYTES);
    const reply = await post(body);
    assert.equal(reply.status, 200, reply.text.slice(0, 200));
    assert.match(reply.text, /"allowed":false.*split it into several Ingresses/);
  });

  void it('a body over the bound is 413 saying why', async () => {
    const reply = await post(JSON.stringify({ pad: 'x'.repeat(DEFAULT_MAX_BODY_BYTES) }));
    assert.equal(reply.status, 413);
    assert.match(reply.text, /AdmissionReview body larger than 7340032 bytes/);
  });
});
