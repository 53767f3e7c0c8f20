// Without the HTTPS listener init gets no redirect peer, and the route flags
// of ssl-redirect ("r", and "e" with rewrite-target) do nothing: a host with
// a pushed certificate is proxied over plain HTTP like any other.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findDataplane } from '../controller/src/nginx/dataplane.ts';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { contractHttpBlock, freePort, startNginx, type RunningNginx } from './test/nginx-harness.ts';
import { getOnce, postRaw, startEchoBackends, type EchoBackend } from './test/lua-fixture.ts';

void describe('ssl-redirect flags without the HTTPS listener', () => {
  let nginx: RunningNginx;
  let statusUrl: string;
  let httpPort: number;
  let backends: EchoBackend[];

  before(async () => {
    backends = await startEchoBackends(['app']);
    const dataplane = findDataplane();
    const statusPort = await freePort();
    httpPort = await freePort();
    const server = `
    server {
        listen 127.0.0.1:${httpPort};
        server_name shop.example.com;
        location / {
            set $proxy_upstream_name "app";
            set $resty_route "r app shop.example.com ns ing app /";
            proxy_pass http://upstream_balancer;
        }
        location ~* "^/rewrite(/|$)(.*)" {
            set $proxy_upstream_name "app";
            set $resty_route "e app shop.example.com ns ing app /rewrite";
            rewrite "(?i)^/rewrite(/|$)(.*)" /$2 break;
            proxy_pass http://upstream_balancer;
        }
        # A probe, not what render writes without HTTPS: it redirects once the worker knows the certificate.
        location /probe {
            rewrite_by_lua_block { resty_ingress.not_found_https(301, "") }
        }
    }`;
    nginx = await startNginx({ dataplane, readyPort: statusPort, http: contractHttpBlock(dataplane, statusPort, server, null) });
    statusUrl = `http://127.0.0.1:${statusPort}`;
    const pushed = await postRaw(statusUrl, JSON.stringify([{ name: 'app', endpoints: [{ address: backends[0].address, port: backends[0].port }], loadBalance: 'round_robin' }]));
    assert.equal(pushed.status, 201, pushed.text);
    const shop = createSelfSignedCertificate({ dnsNames: ['shop.example.com'] });
    const certificates = await fetch(`${statusUrl}/configuration/certificates`, {
      method: 'POST',
      body: JSON.stringify({ certificates: [{ id: 'shop/tls', cert: shop.cert, key: shop.key }], hosts: { 'shop.example.com': 'shop/tls' }, defaultCertificate: null }),
    });
    assert.equal(certificates.status, 201, await certificates.text());
    // Both workers hold the host set (a new connection each time, so both answer some).
    let covered = 0;
    for (const deadline = Date.now() + 2000; covered < 10 && Date.now() < deadline;) {
      covered = (await getOnce(httpPort, 'shop.example.com', '/probe')).status === 301 ? covered + 1 : 0;
    }
    assert.equal(covered, 10, 'the workers redirect for the certificate\'s host');
  });
  after(async () => {
    await nginx?.stop();
    await Promise.all((backends ?? []).map((b) => b.close()));
  });

  const rows = [
    { name: 'flag "r"', path: '/a' },
    { name: 'flag "e" (rewrite-target)', path: '/rewrite/a' },
  ];
  for (const row of rows) {
    void it(`${row.name}: proxied, never redirected`, async () => {
      for (let i = 0; i < 10; i++) {
        const answer = await getOnce(httpPort, 'shop.example.com', row.path);
        assert.equal(answer.status, 200, `${row.path}: ${answer.status} ${answer.location ?? ''}`);
        assert.equal(answer.body, 'app');
      }
      assert.deepEqual(nginx.seriousLogLines(), []);
    });
  }
});
