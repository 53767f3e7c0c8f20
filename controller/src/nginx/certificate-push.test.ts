// Certificates to Lua in bounded PATCHes: the plan (what goes, in which order,
// in how many requests) as table rows, then pushes into real NGINX: a set
// larger than the endpoint's body limit, a rotation, removals, and a Lua that
// lost its state (everything sent again).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertCleanErrorLog, startLuaNginx, type LuaNginx } from '../../../lua/test/lua-fixture.ts';
import type { DynamicCertificates } from '../model/types.ts';
import { createSelfSignedCertificate } from '../tls/self-signed.ts';
import { CERTIFICATE_BATCH_BYTES, createCertificatePusher, heldAfter, planCertificatePatches, type CertificatePatch, type Held } from './certificate-push.ts';
import { getCertificates } from './lua-certificates.ts';

const a = createSelfSignedCertificate({ dnsNames: ['a.example.com'] });
const b = createSelfSignedCertificate({ dnsNames: ['b.example.com'] });
const item = (id: string, certificate = a): DynamicCertificates['certificates'][number] => ({ id, cert: certificate.cert, key: certificate.key });

/** Each PATCH as one line: `set ids | hosts h=id | default id | remove ids`. */
function described(patches: readonly CertificatePatch[]): string[] {
  return patches.map((patch) => [
    patch.set ? `set ${patch.set.map((entry) => entry.id).join(',')}` : '',
    patch.hosts ? `hosts ${Object.entries(patch.hosts).map(([host, id]) => `${host}=${id ?? 'null'}`).join(',')}` : '',
    patch.defaultCertificate !== undefined ? `default ${patch.defaultCertificate ?? 'null'}` : '',
    patch.remove ? `remove ${patch.remove.join(',')}` : '',
  ].filter((part) => part !== '').join(' | '));
}

const EMPTY: Held = { version: 0, fingerprints: new Map<string, string>(), hosts: new Map<string, string>(), defaultCertificate: null };
const heldOf = (desired: DynamicCertificates): Held => heldAfter(desired, 1);

void describe('planCertificatePatches', () => {
  const desired: DynamicCertificates = { certificates: [item('ns/a'), item('ns/b', b)], hosts: { 'a.example.com': 'ns/a', 'b.example.com': 'ns/b' }, defaultCertificate: 'ns/a' };
  const rows: { name: string; held: Held; desired: DynamicCertificates; want: string[] }[] = [
    { name: 'from nothing: certificates, then hosts with the default', held: EMPTY, desired,
      want: ['set ns/a,ns/b', 'hosts a.example.com=ns/a,b.example.com=ns/b | default ns/a'] },
    { name: 'stored but of unknown content (Lua restarted or a push failed): every certificate again, hosts only where they differ',
      held: { version: 3, fingerprints: new Map([['ns/a', ''], ['ns/old', '']]), hosts: new Map([['a.example.com', 'ns/a'], ['old.example.com', 'ns/old']]), defaultCertificate: 'ns/a' },
      desired, want: ['set ns/a,ns/b', 'hosts b.example.com=ns/b', 'hosts old.example.com=null', 'remove ns/old'] },
    { name: 'nothing changed: no request', held: heldOf(desired), desired, want: [] },
    { name: 'a rotation: that certificate alone',
      held: heldOf(desired), desired: { ...desired, certificates: [item('ns/a', b), item('ns/b', b)] }, want: ['set ns/a'] },
    { name: 'the default cleared and a host gone: no certificate sent, removals after the hosts',
      held: heldOf(desired), desired: { certificates: [item('ns/b', b)], hosts: { 'b.example.com': 'ns/b' }, defaultCertificate: null },
      want: ['default null', 'hosts a.example.com=null', 'remove ns/a'] },
  ];
  for (const row of rows) {
    void it(row.name, () => assert.deepEqual(described(planCertificatePatches(row.held, row.desired)), row.want));
  }

  void it(`certificates go in requests of at most ${CERTIFICATE_BATCH_BYTES} bytes`, () => {
    const chain = a.cert.repeat(10);
    const many: DynamicCertificates = { certificates: Array.from({ length: 1000 }, (_, index) => ({ id: `bulk/s${index}`, cert: chain, key: a.key })), hosts: {}, defaultCertificate: null };
    const patches = planCertificatePatches(EMPTY, many);
    assert.ok(patches.length >= 3, `${patches.length} requests`);
    for (const patch of patches) assert.ok(JSON.stringify(patch).length <= CERTIFICATE_BATCH_BYTES, `${JSON.stringify(patch).length} bytes`);
    assert.equal(patches.flatMap((patch) => patch.set ?? []).length, 1000);
  });
});

void describe('certificate pushes into real NGINX', () => {
  let fixture: LuaNginx;
  before(async () => {
    fixture = await startLuaNginx();
  });
  after(async () => {
    await fixture?.nginx.stop();
  });

  void it('a set larger than the endpoint\'s 21 MiB body limit goes through, then only changes go', async () => {
    const pusher = createCertificatePusher(fixture.statusUrl);
    const chain = a.cert.repeat(10);
    const certificates = Array.from({ length: 1700 }, (_, index) => ({ id: `bulk/s${index}`, cert: chain, key: a.key }));
    const hosts = Object.fromEntries(certificates.map((entry, index) => [`h${index}.example.com`, entry.id]));
    const desired: DynamicCertificates = { certificates, hosts, defaultCertificate: 'bulk/s0' };
    assert.ok(JSON.stringify(desired).length > 21 * 1024 * 1024);
    const first = await pusher.push(desired);
    let loaded = await getCertificates(fixture.statusUrl);
    assert.equal(loaded.certificates.length, 1700);
    assert.equal(loaded.hosts.length, 1700);
    assert.equal(loaded.defaultCertificate, 'bulk/s0');
    assert.ok(first >= 5, `version ${first}: several requests`);

    // One rotation and one removal: two requests (the host that named the removed certificate goes first).
    const next: DynamicCertificates = {
      certificates: [{ id: 'bulk/s0', cert: b.cert, key: b.key }, ...certificates.slice(1, -1)],
      hosts: Object.fromEntries(Object.entries(hosts).filter(([, id]) => id !== 'bulk/s1699')),
      defaultCertificate: 'bulk/s0',
    };
    const second = await pusher.push(next);
    assert.equal(second, first + 3, 'set, hosts removed, certificate removed');
    loaded = await getCertificates(fixture.statusUrl);
    assert.equal(loaded.certificates.length, 1699);
    assert.equal(loaded.certificates.find((entry) => entry.id === 'bulk/s0')?.stamp, first + 1, 'the rotated one moved its stamp');
    assert.equal(loaded.certificates.find((entry) => entry.id === 'bulk/s5')?.stamp, 1, 'an unchanged one kept its stamp');

    // A pusher that does not know Lua's state (a new controller) sends everything again; stamps of unchanged PEMs stay.
    const stampBefore = loaded.certificates.find((entry) => entry.id === 'bulk/s5')?.stamp;
    await createCertificatePusher(fixture.statusUrl).push(next);
    loaded = await getCertificates(fixture.statusUrl);
    assert.equal(loaded.certificates.find((entry) => entry.id === 'bulk/s5')?.stamp, stampBefore);
    assertCleanErrorLog(fixture);
  });
});
