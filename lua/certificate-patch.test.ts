// PATCH /configuration/certificates inside real NGINX: only what changed, in
// bounded requests. Each PATCH applies whole or not at all and never leaves a
// host or the default naming a certificate that is not stored; a set too large
// for one POST (the endpoint takes 21 MiB) goes through in several PATCHes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { assertCleanErrorLog, startLuaNginx, type LuaNginx } from './test/lua-fixture.ts';

interface Summary {
  version: number;
  certificates: { id: string; stamp: number }[];
  hosts: { host: string; certificate: string }[];
  defaultCertificate: string | null;
}

const a = createSelfSignedCertificate({ dnsNames: ['a.example.com'] });
const b = createSelfSignedCertificate({ dnsNames: ['b.example.com'] });
const pem = (id: string, certificate = a): { id: string; cert: string; key: string } => ({ id, cert: certificate.cert, key: certificate.key });

void describe('PATCH /configuration/certificates in real NGINX', () => {
  let fixture: LuaNginx;
  const url = (): string => `${fixture.statusUrl}/configuration/certificates`;
  const send = async (method: string, body: unknown): Promise<{ status: number; text: string }> => {
    const res = await fetch(url(), { method, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return { status: res.status, text: await res.text() };
  };
  const summary = async (): Promise<Summary> => (await (await fetch(url())).json()) as Summary;
  /** ids, hosts as host=id, default: what a row expects. */
  const state = async (): Promise<string> => {
    const loaded = await summary();
    const ids = loaded.certificates.map((item) => item.id).sort().join(',');
    const hosts = loaded.hosts.map((item) => `${item.host}=${item.certificate}`).join(',');
    return `ids ${ids} | hosts ${hosts} | default ${loaded.defaultCertificate ?? '-'}`;
  };

  before(async () => {
    fixture = await startLuaNginx();
  });
  after(async () => {
    await fixture?.nginx.stop();
  });

  const rows: { name: string; body: unknown; status: number; says?: RegExp; want: string }[] = [
    { name: 'sets certificates, hosts and the default', status: 200,
      body: { set: [pem('ns/a'), pem('ns/b', b)], hosts: { 'a.example.com': 'ns/a', 'b.example.com': 'ns/b' }, defaultCertificate: 'ns/a' },
      want: 'ids ns/a,ns/b | hosts a.example.com=ns/a,b.example.com=ns/b | default ns/a' },
    { name: 'a certificate alone; hosts and default unchanged', status: 200, body: { set: [pem('ns/c', b)] },
      want: 'ids ns/a,ns/b,ns/c | hosts a.example.com=ns/a,b.example.com=ns/b | default ns/a' },
    { name: 'a host moves and the certificate it left is removed, in one request', status: 200,
      body: { hosts: { 'b.example.com': 'ns/c' }, remove: ['ns/b'] },
      want: 'ids ns/a,ns/c | hosts a.example.com=ns/a,b.example.com=ns/c | default ns/a' },
    { name: 'removing a certificate a host still uses is refused, nothing changes', status: 400, body: { remove: ['ns/c'] },
      says: /certificate ns\/c is still used by host b\.example\.com/, want: 'ids ns/a,ns/c | hosts a.example.com=ns/a,b.example.com=ns/c | default ns/a' },
    { name: 'removing the default certificate is refused', status: 400, body: { hosts: { 'a.example.com': null }, remove: ['ns/a'] },
      says: /defaultCertificate names certificate ns\/a, which is not stored/, want: 'ids ns/a,ns/c | hosts a.example.com=ns/a,b.example.com=ns/c | default ns/a' },
    { name: 'a host naming a certificate not stored is refused', status: 400, body: { hosts: { 'x.example.com': 'ns/zzz' } },
      says: /hosts\[x\.example\.com\] names certificate ns\/zzz, which is not stored/, want: 'ids ns/a,ns/c | hosts a.example.com=ns/a,b.example.com=ns/c | default ns/a' },
    { name: 'set and removed at once is refused', status: 400, body: { set: [pem('ns/d')], remove: ['ns/d'] },
      says: /ns\/d is both set and removed/, want: 'ids ns/a,ns/c | hosts a.example.com=ns/a,b.example.com=ns/c | default ns/a' },
    { name: 'one bad PEM refuses the whole request', status: 400,
      body: { set: [pem('ns/e'), { id: 'ns/f', cert: '-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n', key: a.key }], hosts: { 'e.example.com': 'ns/e' } },
      says: /certificate ns\/f: cert is not a PEM certificate chain/, want: 'ids ns/a,ns/c | hosts a.example.com=ns/a,b.example.com=ns/c | default ns/a' },
    { name: 'a bad host name is refused', status: 400, body: { hosts: { 'Bad Host': 'ns/a' } },
      says: /not a lowercase DNS name/, want: 'ids ns/a,ns/c | hosts a.example.com=ns/a,b.example.com=ns/c | default ns/a' },
    { name: 'hosts removed with null, the default cleared, then their certificate removed', status: 200,
      body: { hosts: { 'a.example.com': null }, defaultCertificate: null, remove: ['ns/a'] },
      want: 'ids ns/c | hosts b.example.com=ns/c | default -' },
    { name: 'an empty PATCH is a new version and changes nothing', status: 200, body: {}, want: 'ids ns/c | hosts b.example.com=ns/c | default -' },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const before = await summary();
      const reply = await send('PATCH', row.body);
      assert.equal(reply.status, row.status, reply.text);
      if (row.says) assert.match(reply.text, row.says);
      assert.doesNotMatch(reply.text, /BEGIN|MII/, 'no PEM in a reason');
      const after = await summary();
      assert.equal(after.version, before.version + (row.status === 200 ? 1 : 0), 'a refused PATCH keeps the version');
      assert.equal(await state(), row.want);
      assertCleanErrorLog(fixture);
    });
  }

  void it('a rotated certificate moves its stamp; an unchanged one keeps it', async () => {
    const before = await summary();
    const stamp = (loaded: Summary, id: string): number | undefined => loaded.certificates.find((item) => item.id === id)?.stamp;
    assert.equal((await send('PATCH', { set: [pem('ns/c', b)] })).status, 200);
    assert.equal(stamp(await summary(), 'ns/c'), stamp(before, 'ns/c'), 'same PEM: workers need not parse it again');
    assert.equal((await send('PATCH', { set: [pem('ns/c', a)] })).status, 200);
    const rotated = await summary();
    assert.equal(stamp(rotated, 'ns/c'), rotated.version);
    assertCleanErrorLog(fixture);
  });

  void it('a set too large for one POST goes through in PATCHes of at most 4 MiB', async () => {
    // 1,700 Secrets of a 10-certificate chain: ~22 MiB of JSON, more than the endpoint's 21 MiB
    // (and within the 32 MiB certificate dict).
    const chain = a.cert.repeat(10);
    const items = Array.from({ length: 1700 }, (_, index) => ({ id: `bulk/s${index}`, cert: chain, key: a.key }));
    const hosts = Object.fromEntries(items.map((item, index) => [`h${index}.bulk.example.com`, item.id]));
    const whole = JSON.stringify({ certificates: items, hosts, defaultCertificate: null });
    assert.ok(whole.length > 21 * 1024 * 1024, `${whole.length} bytes`);
    assert.equal((await send('POST', whole)).status, 413, 'one POST is too large');
    const batches: (typeof items)[] = [[]];
    let bytes = 0;
    for (const item of items) {
      const size = JSON.stringify(item).length;
      if (bytes + size > 4 * 1024 * 1024) { batches.push([]); bytes = 0; }
      batches.at(-1)?.push(item);
      bytes += size;
    }
    assert.ok(batches.length >= 5, `${batches.length} batches`);
    for (const batch of batches) {
      const reply = await send('PATCH', { set: batch });
      assert.equal(reply.status, 200, reply.text);
    }
    assert.equal((await send('PATCH', { hosts })).status, 200);
    const loaded = await summary();
    assert.equal(loaded.certificates.filter((item) => item.id.startsWith('bulk/')).length, 1700);
    assert.equal(loaded.hosts.filter((item) => item.host.endsWith('.bulk.example.com')).length, 1700);
    // NGINX logs the refused POST's size at [error]: that is the 413 above, nothing else.
    assertCleanErrorLog(fixture, [/client intended to send too large body/]);
  });
});
