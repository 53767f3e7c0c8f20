// FastCGI locations inside real NGINX: their access phase
// (resty_ingress.fastcgi.check) answers what the balancer's HTTP-speaking
// fallback servers cannot for a fastcgi_pass: 503 while the backend is unknown
// or has no endpoints, and the ssl-redirect of a plain-HTTP request whose host
// has a certificate (only for a route flagged for it; without the HTTPS
// listener the location passes no code, and init no redirect peer). Otherwise the request reaches the FastCGI responder through the
// balancer. No [error] in the log: without the check the fallback server's
// HTTP answer is "upstream sent unsupported FastCGI protocol version".
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { findDataplane } from '../controller/src/nginx/dataplane.ts';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { startFastcgiResponder, type Listening } from '../e2e/protocol-backends.ts';
import { contractHttpBlock, freePort, startNginx, type RunningNginx } from './test/nginx-harness.ts';
import { getOnce as get, postRaw, type Answer } from './test/lua-fixture.ts';

void describe('FastCGI locations: redirect and 503 before the balancer', () => {
  let nginx: RunningNginx;
  let statusUrl: string;
  let httpPort: number;
  let tlsPort: number;
  let dir: string;
  let responder: Listening;
  const placeholder = createSelfSignedCertificate({ commonName: 'placeholder' });
  const shop = createSelfSignedCertificate({ dnsNames: ['shop.example.com'] });

  /** Every one of `tries` requests gives `status` (workers notice a push within ~5 ms). */
  const settle = async (host: string, path: string, status: number, tls = false, tries = 4): Promise<Answer[]> => {
    const deadline = Date.now() + 2000;
    for (;;) {
      const answers = await Promise.all(Array.from({ length: tries }, () => get(tls ? tlsPort : httpPort, host, path, tls)));
      if (answers.every((a) => a.status === status)) return answers;
      if (Date.now() > deadline) assert.fail(`${host}${path}: wanted ${status}, got ${answers.map((a) => a.status).join(',')}`);
      await sleep(10);
    }
  };

  const fcgiLocation = (path: string, backend: string, flags: string, check: string): string => `
        location ${path} {
            set $proxy_upstream_name "${backend}";
            set $resty_route "${flags} ${backend} _ ns ing ${backend} ${path}";
            access_by_lua_block { require("resty_ingress.fastcgi").check(${check}) }
            fastcgi_param REQUEST_METHOD $request_method;
            fastcgi_param SCRIPT_NAME $fastcgi_script_name;
            fastcgi_pass upstream_balancer;
        }`;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'resty-fastcgi-test-'));
    writeFileSync(join(dir, 'placeholder.crt'), placeholder.cert);
    writeFileSync(join(dir, 'placeholder.key'), placeholder.key, { mode: 0o600 });
    responder = await startFastcgiResponder('127.0.0.1', 'php-pod');
    const dataplane = findDataplane();
    const statusPort = await freePort();
    httpPort = await freePort();
    tlsPort = await freePort();
    const redirect = { code: 308, portSuffix: `:${tlsPort}` };
    const server = `
    server {
        listen 127.0.0.1:${httpPort};
        listen 127.0.0.1:${tlsPort} ssl;
        server_name _;
        ssl_certificate ${dir}/placeholder.crt;
        ssl_certificate_key ${dir}/placeholder.key;
        ssl_client_hello_by_lua_block { require("resty_ingress.certificate").call() }
        ${fcgiLocation('/php', 'php', 'r', `308, ":${tlsPort}"`)}
        ${fcgiLocation('/php-no-redirect', 'php', '-', `308, ":${tlsPort}"`)}
        ${fcgiLocation('/none', 'none', 'r', `308, ":${tlsPort}"`)}
    }`;
    nginx = await startNginx({ dataplane, readyPort: statusPort, http: contractHttpBlock(dataplane, statusPort, server, redirect) });
    statusUrl = `http://127.0.0.1:${statusPort}`;
  });
  after(async () => {
    await nginx?.stop();
    await responder?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  void it('an unknown backend, then one without endpoints: 503', async () => {
    await settle('shop.example.com', '/php', 503);
    const pushed = await postRaw(statusUrl, JSON.stringify([{ name: 'php', endpoints: [], loadBalance: 'round_robin' }]));
    assert.equal(pushed.status, 201, pushed.text);
    await settle('shop.example.com', '/php', 503);
    assert.deepEqual(nginx.seriousLogLines(), []);
  });

  void it('with an endpoint the responder answers; a backend still unknown stays 503', async () => {
    const pushed = await postRaw(statusUrl, JSON.stringify([{ name: 'php', endpoints: [{ address: responder.address, port: responder.port }], loadBalance: 'round_robin' }]));
    assert.equal(pushed.status, 201, pushed.text);
    const answers = await settle('shop.example.com', '/php/index.php', 200);
    for (const answer of answers) assert.equal((JSON.parse(answer.body) as { pod: string }).pod, 'php-pod');
    await settle('shop.example.com', '/none', 503);
  });

  void it('a host with a certificate: plain HTTP redirected with its URI, HTTPS served; an unflagged route and another host: served', async () => {
    const res = await fetch(`${statusUrl}/configuration/certificates`, {
      method: 'POST', body: JSON.stringify({ certificates: [{ id: 'shop/tls', cert: shop.cert, key: shop.key }], hosts: { 'shop.example.com': 'shop/tls' }, defaultCertificate: null }),
    });
    assert.equal(res.status, 201, await res.text());
    const redirected = await settle('shop.example.com', '/php/a.php?x=1', 308);
    for (const answer of redirected) assert.equal(answer.location, `https://shop.example.com:${tlsPort}/php/a.php?x=1`);
    await settle('shop.example.com', '/none', 308);
    await settle('shop.example.com', '/php/a.php', 200, true);
    await settle('shop.example.com', '/php-no-redirect/a.php', 200);
    await settle('other.example.com', '/php/a.php', 200);
    assert.deepEqual(nginx.seriousLogLines(), []);
  });
});
