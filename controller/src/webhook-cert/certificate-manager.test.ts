// The certificate manager against a fake cluster (an in-memory Secret and
// ValidatingWebhookConfiguration with real optimistic concurrency): a
// missing Secret is created, a lost race rereads the winner's certificate,
// a certificate near expiry is renewed with the CA kept, an unusable Secret
// is replaced with a Warning Event, and the caBundle follows the CA.

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { pino } from 'pino';
import { ApiConflictError } from '../kube/cluster-writer.ts';
import { pemBlocks, type KeyPair } from './certificates.ts';
import { createCertificateManager, INVALID_SECRET_REASON, type CertificateManager } from './certificate-manager.ts';
import { SECRET_KEYS, type CertificatePolicy } from './certificate-plan.ts';
import type { CertificateCluster, StoredSecret } from './cluster-access.ts';

const HOUR = 3_600_000;
const POLICY: CertificatePolicy = { dnsNames: ['hook', 'hook.ingress', 'hook.ingress.svc'], validityMs: 30 * HOUR };
const T0 = new Date('2026-01-01T00:00:00Z');

interface FakeCluster extends CertificateCluster {
  secret: StoredSecret | null;
  bundles: string[] | null;
  writes: { secret: number; conflicts: number; bundle: number };
  /** Runs once, just before the next Secret write reaches the store (another replica's turn). */
  beforeNextWrite: (() => Promise<void>) | null;
}

function fakeCluster(): FakeCluster {
  let version = 0;
  const put = (data: Readonly<Record<string, string>>): StoredSecret => ({ resourceVersion: String(++version), type: 'kubernetes.io/tls', uid: 'u1', data: { ...data } });
  const interleave = async (): Promise<void> => {
    const turn = cluster.beforeNextWrite;
    cluster.beforeNextWrite = null;
    await turn?.();
  };
  const cluster: FakeCluster = {
    secretRef: 'ingress/hook',
    secret: null,
    bundles: [''],
    writes: { secret: 0, conflicts: 0, bundle: 0 },
    beforeNextWrite: null,
    readSecret: async () => cluster.secret,
    async createSecret(data) {
      await interleave();
      if (cluster.secret !== null) { cluster.writes.conflicts += 1; throw new ApiConflictError('exists'); }
      cluster.writes.secret += 1;
      cluster.secret = put(data);
      return cluster.secret;
    },
    async updateSecret(data, previous) {
      await interleave();
      if (cluster.secret?.resourceVersion !== previous.resourceVersion) { cluster.writes.conflicts += 1; throw new ApiConflictError('stale'); }
      cluster.writes.secret += 1;
      cluster.secret = put(data);
      return cluster.secret;
    },
    readCaBundles: async () => cluster.bundles,
    async writeCaBundle(bundle) {
      if (cluster.bundles === null) throw new Error('gone');
      cluster.writes.bundle += 1;
      cluster.bundles = cluster.bundles.map(() => bundle);
    },
  };
  return cluster;
}

interface Replica {
  readonly manager: CertificateManager;
  readonly served: KeyPair[];
  readonly events: string[];
  clock: Date;
}

function replica(cluster: CertificateCluster): Replica {
  const r: Replica = {
    clock: T0,
    served: [],
    events: [],
    manager: undefined as unknown as CertificateManager,
  };
  (r as { manager: CertificateManager }).manager = createCertificateManager({
    cluster, policy: POLICY, logger: pino({ level: 'silent' }), now: () => r.clock,
    warn: (_secret, reason, message) => { r.events.push(`${reason}: ${message}`); },
    onCertificate: (serving) => { r.served.push(serving); },
  });
  return r;
}

/** The serving certificate names the Service and chains to a CA of `bundle`. */
function assertTrusted(serving: KeyPair, bundle: string): void {
  const cert = new X509Certificate(serving.certPem);
  for (const name of POLICY.dnsNames) assert.equal(cert.checkHost(name), name, `SAN ${name}`);
  assert.ok(pemBlocks(bundle).some((ca) => cert.verify(new X509Certificate(ca).publicKey)), 'signed by a CA of the caBundle');
}

const serial = (pair: KeyPair | undefined): string => new X509Certificate(pair?.certPem ?? '').serialNumber;

void test('missing Secret: created, the caBundle written, the certificate served', async () => {
  const cluster = fakeCluster();
  const a = replica(cluster);
  const result = await a.manager.reconcile();
  assert.equal(cluster.writes.secret, 1);
  assert.ok(cluster.secret);
  assert.deepEqual(Object.keys(cluster.secret.data).sort(), [SECRET_KEYS.ca, SECRET_KEYS.caKey, SECRET_KEYS.cert, SECRET_KEYS.key].sort());
  assert.deepEqual(cluster.bundles, [result.caBundle]);
  assert.equal(a.served.length, 1);
  assertTrusted(a.served[0], cluster.bundles?.[0] ?? '');
  // A second pass changes nothing: no write, no new certificate.
  await a.manager.reconcile();
  assert.deepEqual(cluster.writes, { secret: 1, conflicts: 0, bundle: 1 });
  assert.equal(a.served.length, 1);
});

void test('empty Secret (as the chart creates it): filled by an update, without a Warning', async () => {
  const cluster = fakeCluster();
  cluster.secret = { resourceVersion: '7', type: 'Opaque', uid: 'u1', data: {} };
  const a = replica(cluster);
  await a.manager.reconcile();
  assert.deepEqual(a.events, []);
  assert.equal(cluster.writes.secret, 1);
  assert.equal(cluster.secret.data[SECRET_KEYS.cert], a.served[0].certPem);
  assertTrusted(a.served[0], cluster.bundles?.[0] ?? '');
});

void test('replicas racing to fill the chart\'s empty Secret: the stale update conflicts, one certificate', async () => {
  const cluster = fakeCluster();
  cluster.secret = { resourceVersion: '7', type: 'Opaque', uid: 'u1', data: {} };
  const a = replica(cluster);
  const b = replica(cluster);
  cluster.beforeNextWrite = async () => { await b.manager.reconcile(); };
  await a.manager.reconcile();
  assert.deepEqual([cluster.writes.secret, cluster.writes.conflicts], [1, 1]);
  assert.equal(serial(a.served[0]), serial(b.served[0]));
});

void test('replicas racing to create: one wins, the other rereads and serves the winner\'s certificate', async () => {
  const cluster = fakeCluster();
  const a = replica(cluster);
  const b = replica(cluster);
  // A read "no Secret" and issued its own; B completes first.
  cluster.beforeNextWrite = async () => { await b.manager.reconcile(); };
  await a.manager.reconcile();
  assert.equal(cluster.writes.secret, 1, 'one Secret written');
  assert.equal(cluster.writes.conflicts, 1, 'the loser saw a conflict');
  assert.equal(serial(a.served[0]), serial(b.served[0]), 'both serve the same certificate');
  assert.equal(cluster.secret?.data[SECRET_KEYS.cert], a.served[0].certPem);
});

void test('replicas racing to renew: the stale update conflicts and the loser adopts the renewal', async () => {
  const cluster = fakeCluster();
  const a = replica(cluster);
  const b = replica(cluster);
  await a.manager.reconcile();
  await b.manager.reconcile();
  a.clock = b.clock = new Date(T0.getTime() + 21 * HOUR); // 9 h of 30 left: due
  cluster.beforeNextWrite = async () => { await b.manager.reconcile(); };
  await a.manager.reconcile();
  assert.equal(cluster.writes.secret, 2, 'created once, renewed once');
  assert.equal(cluster.writes.conflicts, 1);
  assert.equal(serial(a.served.at(-1)), serial(b.served.at(-1)));
  assert.notEqual(serial(a.served[0]), serial(a.served.at(-1)), 'renewed');
});

void test('near expiry: a new serving certificate from the same CA (caBundle untouched), then a new CA beside the old one', async () => {
  const cluster = fakeCluster();
  const a = replica(cluster);
  const first = await a.manager.reconcile();
  a.clock = new Date(T0.getTime() + 19 * HOUR); // 11 h left, more than a third: kept
  await a.manager.reconcile();
  assert.equal(a.served.length, 1, 'not yet due');
  a.clock = new Date(T0.getTime() + 21 * HOUR);
  const second = await a.manager.reconcile();
  assert.equal(a.served.length, 2, 'renewed and handed over without a restart');
  assert.equal(second.caBundle, first.caBundle, 'the CA is kept');
  assert.equal(cluster.writes.bundle, 1, 'no caBundle churn');
  assertTrusted(second.serving, cluster.bundles?.[0] ?? '');
  // The CA (90 h) now has less than one serving lifetime left at the next renewal: a new CA, the old one still trusted.
  a.clock = new Date(T0.getTime() + 70 * HOUR);
  const third = await a.manager.reconcile();
  assert.notEqual(third.ca.certPem, first.ca.certPem, 'a new CA');
  const bundle = pemBlocks(cluster.bundles?.[0] ?? '');
  assert.equal(bundle.length, 2, 'new and old CA in the caBundle');
  assert.equal(bundle[1].trim(), first.ca.certPem.trim());
  assertTrusted(third.serving, cluster.bundles?.[0] ?? '');
  assertTrusted(second.serving, cluster.bundles?.[0] ?? '');
});

const garbage: { name: string; data: (valid: Readonly<Record<string, string>>) => Record<string, string> }[] = [
  { name: 'not PEM', data: (v) => ({ ...v, [SECRET_KEYS.cert]: 'hello' }) },
  { name: 'key of another certificate', data: (v) => ({ ...v, [SECRET_KEYS.key]: v[SECRET_KEYS.caKey] }) },
  { name: 'no key', data: (v) => ({ [SECRET_KEYS.cert]: v[SECRET_KEYS.cert], [SECRET_KEYS.ca]: v[SECRET_KEYS.ca] }) },
  { name: 'CA that did not sign it', data: (v) => ({ ...v, [SECRET_KEYS.ca]: v[SECRET_KEYS.cert] }) },
];

for (const row of garbage) {
  void test(`unusable Secret (${row.name}): replaced, with a Warning Event`, async () => {
    const cluster = fakeCluster();
    const a = replica(cluster);
    const valid = (await a.manager.reconcile(), cluster.secret?.data ?? {});
    cluster.secret = { resourceVersion: '99', type: 'kubernetes.io/tls', uid: 'u1', data: row.data(valid) };
    const b = replica(cluster);
    const result = await b.manager.reconcile();
    assert.equal(b.events.length, 1, 'one Event');
    assert.match(b.events[0], new RegExp(`^${INVALID_SECRET_REASON}: .+; a new certificate was issued$`));
    assert.equal(cluster.secret.data[SECRET_KEYS.cert], result.serving.certPem, 'a new certificate is stored');
    assertTrusted(b.served[0], cluster.bundles?.[0] ?? '');
  });
}

void test('a Service renamed: the certificate is reissued for the new names, without a Warning', async () => {
  const cluster = fakeCluster();
  await replica(cluster).manager.reconcile();
  const renamed = createCertificateManager({
    cluster, policy: { ...POLICY, dnsNames: ['other.ingress.svc'] }, logger: pino({ level: 'silent' }), now: () => T0,
    warn: () => { assert.fail('no Event for a rename'); }, onCertificate: () => {},
  });
  const result = await renamed.reconcile();
  assert.equal(new X509Certificate(result.serving.certPem).checkHost('other.ingress.svc'), 'other.ingress.svc');
  assert.equal(cluster.writes.secret, 2);
});

void test('no ValidatingWebhookConfiguration yet: the certificate is still served, the pass fails (and is retried)', async () => {
  const cluster = fakeCluster();
  cluster.bundles = null;
  const a = replica(cluster);
  await assert.rejects(a.manager.reconcile(), /does not exist/);
  assert.equal(a.served.length, 1);
  cluster.bundles = [''];
  await a.manager.reconcile();
  assert.equal(cluster.writes.bundle, 1);
});

void test('a certgen Secret (no ca.key): used as it is until due, then renewed with a new CA beside the old one', async () => {
  const cluster = fakeCluster();
  const a = replica(cluster);
  const first = await a.manager.reconcile();
  const { [SECRET_KEYS.caKey]: _dropped, ...certgen } = cluster.secret?.data ?? {};
  cluster.secret = { resourceVersion: '50', type: 'Opaque', uid: 'u1', data: certgen };
  const b = replica(cluster);
  await b.manager.reconcile();
  assert.equal(cluster.secret.resourceVersion, '50', 'not rewritten while sound');
  assert.equal(serial(b.served[0]), serial(first.serving));
  b.clock = new Date(T0.getTime() + 21 * HOUR);
  const renewed = await b.manager.reconcile();
  assert.notEqual(renewed.ca.certPem, first.ca.certPem, 'its CA cannot sign: a new one');
  assert.deepEqual(b.events, [], 'nothing wrong with it');
  const bundle = pemBlocks(cluster.bundles?.[0] ?? '');
  assert.equal(bundle.length, 2);
  assertTrusted(renewed.serving, cluster.bundles?.[0] ?? '');
  assertTrusted(first.serving, cluster.bundles?.[0] ?? '');
});
