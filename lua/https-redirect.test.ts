// ssl-redirect decided by Lua inside real NGINX: a plain-HTTP request is
// redirected once its host has a pushed certificate (exact host or one-label
// wildcard) and proxied again once the certificate is gone, with no reload
// (same master and worker PIDs); HTTPS requests are never redirected, and a
// location that answers 404 itself redirects the same way. The redirect is
// answered by the fallback server the balancer picks for a route flagged "r"
// (also for a location proxying to https:// backends: that try is plain
// HTTP), and for a route flagged "e" (rewrite-target) by its named location,
// with the client's URI. Without the HTTPS listener (no redirect peer given
// to init) the flags do nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { findDataplane } from '../controller/src/nginx/dataplane.ts';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { contractHttpBlock, freePort, startNginx, unbalancedLocation, type RunningNginx } from './test/nginx-harness.ts';
import { getOnce as get, postRaw, startEchoBackends, type Answer, type EchoBackend } from './test/lua-fixture.ts';

void describe('ssl-redirect follows pushed certificates without a reload', () => {
  let nginx: RunningNginx;
  let statusUrl: string;
  let httpPort: number;
  let tlsPort: number;
  let dir: string;
  let backends: EchoBackend[];
  const placeholder = createSelfSignedCertificate({ commonName: 'placeholder' });
  const shop = createSelfSignedCertificate({ dnsNames: ['shop.example.com'] });
  const wild = createSelfSignedCertificate({ dnsNames: ['*.api.example.com'] });

  const pushCertificates = async (hosts: Record<string, string>): Promise<void> => {
    const certificates = [{ id: 'shop/tls', cert: shop.cert, key: shop.key }, { id: 'api/wild', cert: wild.cert, key: wild.key }];
    const res = await fetch(`${statusUrl}/configuration/certificates`, { method: 'POST', body: JSON.stringify({ certificates, hosts, defaultCertificate: null }) });
    assert.equal(res.status, 201, await res.text());
  };

  /** Every one of `tries` plain requests gives `status` (workers notice a push within ~5 ms). */
  const settle = async (host: string, path: string, status: number, tries = 6): Promise<Answer[]> => {
    const deadline = Date.now() + 2000;
    for (;;) {
      const answers = await Promise.all(Array.from({ length: tries }, () => get(httpPort, host, path, false)));
      if (answers.every((a) => a.status === status)) return answers;
      if (Date.now() > deadline) assert.fail(`${host}${path}: wanted ${status}, got ${answers.map((a) => a.status).join(',')}`);
      await sleep(10);
    }
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'resty-redirect-test-'));
    writeFileSync(join(dir, 'placeholder.crt'), placeholder.cert);
    writeFileSync(join(dir, 'placeholder.key'), placeholder.key, { mode: 0o600 });
    backends = await startEchoBackends(['app']);
    const dataplane = findDataplane();
    const statusPort = await freePort();
    httpPort = await freePort();
    tlsPort = await freePort();
    // As location.njk renders a location with ssl-redirect on (route flag "r": proxied plain, to an
    // https:// backend; "e": with rewrite-target; one answering 404) and one with it off ("-"), in the
    // catch-all server ($resty_route names "_": Lua reads $host), two exact servers (their name in
    // $resty_route is the host) and a wildcard server (Lua reads $host). One upstream for all.
    const redirect = { code: 308, portSuffix: `:${tlsPort}` };
    const server = `
    server {
        listen 127.0.0.1:${httpPort};
        listen 127.0.0.1:${tlsPort} ssl;
        server_name _;
        ssl_certificate ${dir}/placeholder.crt;
        ssl_certificate_key ${dir}/placeholder.key;
        ssl_client_hello_by_lua_block { require("resty_ingress.certificate").call() }
        location / {
            set $proxy_upstream_name "app";
            set $resty_route "r app _ ns ing app /";
            proxy_pass http://upstream_balancer;
        }
        location /tls-backend {
            set $proxy_upstream_name "app";
            set $resty_route "r app _ ns ing app /tls-backend";
            proxy_pass https://upstream_balancer;
        }
        location /tls-none {
            set $proxy_upstream_name "none";
            set $resty_route "- none _ ns ing none /tls-none";
            proxy_pass https://upstream_balancer;
        }
        location /routed-host {
            set $proxy_upstream_name "app";
            set $resty_route "r app shop.example.com ns ing app /routed-host";
            proxy_pass http://upstream_balancer;
        }
        location ~* "^/rewrite(/|$)(.*)" {
            set $proxy_upstream_name "app";
            set $resty_route "e app _ ns ing app /rewrite(/|\`)(.*)";
            rewrite "(?i)^/rewrite(/|$)(.*)" /$2 break;
            error_page 500 = @resty_unbalanced_https;
            proxy_pass http://upstream_balancer;
        }
        location /missing {
            rewrite_by_lua_block { resty_ingress.not_found_https(301, "") }
        }
        location /kept {
            rewrite_by_lua_block { resty_ingress.not_found_https(301, ":4443", true) }
        }
        location /plain {
            set $proxy_upstream_name "app";
            set $resty_route "- app _ ns ing app /plain";
            proxy_pass http://upstream_balancer;
        }${unbalancedLocation(redirect)}
    }${['exact.example.com', 'bare.example.com', '*.wild.example.com'].map((host) => `
    server {
        listen 127.0.0.1:${httpPort};
        listen 127.0.0.1:${tlsPort} ssl;
        server_name ${host};
        location / {
            set $proxy_upstream_name "app";
            set $resty_route "r app ${host} ns ing app /";
            proxy_pass http://upstream_balancer;
        }
    }`).join('')}
    server {
        listen 127.0.0.1:${httpPort};
        server_name nocert.example.com x.api.example.com;
        location / {
            set $proxy_upstream_name "app";
            set $resty_route "rh app nocert.example.com ns ing app /";
            proxy_pass http://upstream_balancer;
        }
    }`;
    nginx = await startNginx({ dataplane, readyPort: statusPort, http: contractHttpBlock(dataplane, statusPort, server, redirect) });
    statusUrl = `http://127.0.0.1:${statusPort}`;
    const pushed = await postRaw(statusUrl, JSON.stringify([{ name: 'app', endpoints: [{ address: backends[0].address, port: backends[0].port }], loadBalance: 'round_robin' }]));
    assert.equal(pushed.status, 201, pushed.text);
  });
  after(async () => {
    await nginx?.stop();
    await Promise.all((backends ?? []).map((b) => b.close()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  void it('without certificates every host is proxied over plain HTTP, and 404 stays 404', async () => {
    // A backend without endpoints: 503 from the fallback server, over plain HTTP for an https:// location too.
    await settle('shop.example.com', '/tls-none', 503);
    const answers = await settle('shop.example.com', '/a', 200);
    assert.ok(answers.every((a) => a.body === 'app'));
    const rewritten = await settle('shop.example.com', '/rewrite/a', 200);
    assert.ok(rewritten.every((a) => a.body === 'app'));
    await settle('shop.example.com', '/missing', 404);
  });

  void it('a pushed certificate turns on the redirect for its hosts, same PIDs', async () => {
    const master = nginx.masterPid;
    const workers = nginx.workerPids();
    await pushCertificates({ 'shop.example.com': 'shop/tls', 'exact.example.com': 'shop/tls', '*.api.example.com': 'api/wild', '*.wild.example.com': 'api/wild' });
    const rows = [
      { name: 'exact host keeps path and query', host: 'shop.example.com', path: '/cart?id=7&q=a%20b', status: 308, location: `https://shop.example.com:${tlsPort}/cart?id=7&q=a%20b` },
      { name: 'a location proxying to https:// backends', host: 'shop.example.com', path: '/tls-backend/x?y=1', status: 308, location: `https://shop.example.com:${tlsPort}/tls-backend/x?y=1` },
      { name: 'rewrite-target: the client\'s URI, not the rewritten one', host: 'shop.example.com', path: '/rewrite/cart?id=7', status: 308, location: `https://shop.example.com:${tlsPort}/rewrite/cart?id=7` },
      { name: 'Host with port and capitals ($host is lowercased, portless)', host: 'SHOP.Example.com:80', path: '/', status: 308, location: `https://shop.example.com:${tlsPort}/` },
      { name: 'one-label wildcard', host: 'v1.api.example.com', path: '/x', status: 308, location: `https://v1.api.example.com:${tlsPort}/x` },
      { name: 'two labels under the wildcard are not covered', host: 'a.v1.api.example.com', path: '/x', status: 200, location: undefined },
      { name: 'the wildcard\'s own domain is not covered', host: 'api.example.com', path: '/x', status: 200, location: undefined },
      { name: 'another host stays plain', host: 'plain.example.com', path: '/x', status: 200, location: undefined },
      { name: 'a location with ssl-redirect off is proxied', host: 'shop.example.com', path: '/plain', status: 200, location: undefined },
      { name: '404 location: the configured code, no port for 443', host: 'shop.example.com', path: '/missing?a=1', status: 301, location: 'https://shop.example.com/missing?a=1' },
      { name: '404 location: one trailing slash dropped, as ingress-nginx', host: 'shop.example.com', path: '/missing/', status: 301, location: 'https://shop.example.com/missing' },
      { name: '404 location: a slash before the query stays', host: 'shop.example.com', path: '/missing/?a=1', status: 301, location: 'https://shop.example.com/missing/?a=1' },
      { name: 'use-port-in-redirects and preserve-trailing-slash: port named, slash kept', host: 'shop.example.com', path: '/kept/', status: 301, location: 'https://shop.example.com:4443/kept/' },
      { name: '404 location on a host without certificate', host: 'plain.example.com', path: '/missing', status: 404, location: undefined },
      { name: 'an exact server: its host comes from $resty_route', host: 'exact.example.com', path: '/x?y=1', status: 308, location: `https://exact.example.com:${tlsPort}/x?y=1` },
      { name: 'server-alias (flag h): the alias\'s own certificate decides, not the server name\'s', host: 'x.api.example.com', path: '/x', status: 308, location: `https://x.api.example.com:${tlsPort}/x` },
      { name: 'server-alias (flag h): the server name without certificate stays plain', host: 'nocert.example.com', path: '/x', status: 200, location: undefined },
      { name: 'an exact server without certificate', host: 'bare.example.com', path: '/x', status: 200, location: undefined },
      { name: 'a wildcard server: $host, covered by the wildcard', host: 'a.wild.example.com', path: '/x', status: 308, location: `https://a.wild.example.com:${tlsPort}/x` },
      // The server's own name "*.wild.example.com" would count as covered: $host must decide.
      { name: 'a wildcard server: $host, two labels under the wildcard', host: 'a.b.wild.example.com', path: '/x', status: 200, location: undefined },
      // Only an exact server's name in $resty_route is the request's host: this catch-all location
      // breaks that on purpose to show which one decides (the redirect itself keeps $host).
      { name: 'the host in $resty_route decides, not $host', host: 'plain.example.com', path: '/routed-host', status: 308, location: `https://plain.example.com:${tlsPort}/routed-host` },
    ];
    for (const row of rows) {
      const answers = await settle(row.host, row.path, row.status);
      for (const answer of answers) assert.equal(answer.location, row.location, row.name);
    }
    assert.equal(nginx.masterPid, master);
    assert.deepEqual(nginx.workerPids(), workers);
  });

  void it('HTTPS requests of a covered host are proxied, never redirected', async () => {
    for (const host of ['shop.example.com', 'shop.example.com', 'exact.example.com', 'exact.example.com']) {
      const answer = await get(tlsPort, host, '/a', true);
      assert.equal(answer.status, 200, host);
      assert.equal(answer.body, 'app', host);
    }
  });

  void it('removing the certificate (Secret deleted) proxies plain HTTP again, same PIDs', async () => {
    const workers = nginx.workerPids();
    await pushCertificates({ '*.api.example.com': 'api/wild' });
    await settle('shop.example.com', '/a', 200);
    await settle('exact.example.com', '/x', 200);
    await settle('shop.example.com', '/missing', 404);
    await settle('v1.api.example.com', '/x', 308);
    assert.deepEqual(nginx.workerPids(), workers);
    assert.deepEqual(nginx.seriousLogLines(), []);
  });
});
