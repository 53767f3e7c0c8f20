// mirror-target through a rendered nginx.conf in the real data-plane NGINX:
// the copy the mirror receives (method, URI, Host, body or none), the
// client's answer coming from the main backend whatever the mirror does, and
// a target NGINX cannot resolve blamed on its Ingress alone (ownersOfLine),
// so the sync leaves that Ingress out instead of failing every reload; and
// what a slow copy does delay (the request's end: its metrics line, the next
// request on the connection).
// Fails (never skips) without the runtime: the test command runs setup first.

import { after, before, describe, it } from 'node:test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import { parseAnnotations } from '../model/features/testing.ts';
import type { IngressRef, Location, MirrorConfig, Model } from '../model/types.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { testNginxConf } from '../nginx/nginx-conf-files.ts';
import { NginxConfigError } from '../nginx/nginx-errors.ts';
import { acceptedByNginx, refusedByNginx } from './testdata/nginx-refusal.ts';
import { ownersOfLine } from './conf-owners.ts';
import { renderConfig } from './render-config.ts';
import { createSelfSignedCertificate } from '../tls/self-signed.ts';
import { backend, DEFAULT_SETTINGS, goldenOptions, model, notFound, proxied, server } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx, type RunningNginx } from './testdata/nginx-runner.ts';

const HOST = 'shop.test';
const ref = (name: string): IngressRef => ({ namespace: 'shop', name });

/** The mirror config ingress-nginx's annotations give (parsed by the feature module, as the builder does). */
function mirror(annotations: Record<string, string>): MirrorConfig {
  const parsed = parseAnnotations(annotations);
  assert.ok(parsed.ok && parsed.value.policy.mirror, JSON.stringify(parsed));
  return parsed.value.policy.mirror;
}

function mirrored(path: string, name: string, config: MirrorConfig, backendName: string): Location {
  return proxied(path, 'prefix', backendName, { ingress: ref(name), policy: { mirror: config }, host: HOST });
}

/** One request as a server received it. */
interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The TLS server name (SNI) the client sent, over HTTPS. */
  readonly servername?: string | false | null;
}

/**
 * A server that records what it receives and answers `answer`, or holds the request for `holdMs`
 * first; over HTTPS with `tls`.
 */
async function recorder(answer: string, holdMs = 0, tls?: { cert: string; key: string }, status = 200): Promise<{ server: HttpServer; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const servername = tls === undefined ? undefined : (req.socket as TLSSocket).servername;
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, servername });
      const reply = (): void => void res.writeHead(status).end(answer);
      if (holdMs > 0) setTimeout(reply, holdMs).unref();
      else reply();
    });
  };
  const server: HttpServer = tls === undefined ? createServer(handle) : createHttpsServer(tls, handle);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

/**
 * One request through NGINX (node:http: fetch() cannot set Host); resolves with the status, body and
 * time taken. A body given in pieces is sent chunked.
 */
function send(port: number, method: string, path: string, body?: string | readonly string[]): Promise<{ status: number; body: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { host: HOST }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, ms: Date.now() - started }));
    });
    req.on('error', reject);
    if (typeof body === 'string' || body === undefined) req.end(body);
    else {
      for (const piece of body) req.write(piece);
      req.end();
    }
  });
}

/** Waits until `seen` holds `count` requests (bounded). */
async function received(seen: readonly Seen[], count: number): Promise<readonly Seen[]> {
  for (let i = 0; i < 200 && seen.length < count; i++) await sleep(10);
  return seen;
}

void describe('mirror-target in real NGINX', () => {
  const web = backend('shop-web');
  let nginx: RunningNginx;
  let httpPort: number;
  let main: Awaited<ReturnType<typeof recorder>>;
  let copies: Awaited<ReturnType<typeof recorder>>;
  let slow: Awaited<ReturnType<typeof recorder>>;
  let secure: Awaited<ReturnType<typeof recorder>>;
  let missing: Awaited<ReturnType<typeof recorder>>;
  let errors: Awaited<ReturnType<typeof recorder>>;
  const errorBackend = backend('shop-errors');
  const sockets = new Set<Socket>();

  before(async () => {
    main = await recorder('main answer');
    copies = await recorder('mirror answer, never seen by clients');
    slow = await recorder('late', 3000);
    slow.server.on('connection', (socket: Socket) => sockets.add(socket));
    const cert = createSelfSignedCertificate({ dnsNames: ['localhost'] });
    secure = await recorder('tls mirror answer', 0, { cert: cert.cert, key: cert.key });
    missing = await recorder('no such page', 0, undefined, 404);
    errors = await recorder('custom error page');
    const deadPort = await freePort();
    const at = (port: number, rest: string): string => `http://127.0.0.1:${port}${rest}`;
    const site: Model = model([
      server('_', [notFound('/')]),
      server(HOST, [
        mirrored('/copy', 'copy', mirror({ 'mirror-target': at(copies.port, '$request_uri') }), web.name),
        mirrored('/nobody', 'nobody', mirror({ 'mirror-target': at(copies.port, '/shadow$request_uri'), 'mirror-request-body': 'off', 'mirror-host': 'shadow.example' }), web.name),
        mirrored('/fixed', 'fixed', mirror({ 'mirror-target': at(copies.port, '/mirror') }), web.name),
        mirrored('/dead', 'dead', mirror({ 'mirror-target': at(deadPort, '$request_uri') }), web.name),
        mirrored('/slow', 'slow', mirror({ 'mirror-target': at(slow.port, '$request_uri') }), web.name),
        mirrored('/missing', 'missing', mirror({ 'mirror-target': at(missing.port, '$request_uri') }), web.name),
        mirrored('/tls', 'tls', mirror({ 'mirror-target': `https://localhost:${secure.port}/over-tls$request_uri`, 'mirror-host': 'shadow.example' }), web.name),
        proxied('/', 'prefix', web.name, { ingress: ref('front'), host: HOST }),
      ]),
      // The ConfigMap's custom-http-errors: server-level error pages every location inherits.
    ], [web, errorBackend], { ...DEFAULT_SETTINGS, customErrors: { codes: [404], interceptDisabled: false, defaultService: null, backend: errorBackend.name } });
    httpPort = await freePort();
    const statusPort = await freePort();
    const dataplane = findDataplane();
    const prefix = makePrefix();
    const rendered = renderConfig(site, { ...goldenOptions(dataplane, prefix), httpPort, httpsPort: await freePort(), statusPort, workerProcesses: 1 });
    nginx = await startNginx(dataplane, prefix, rendered.conf, `http://127.0.0.1:${statusPort}/healthz`);
    const push = await fetch(`http://127.0.0.1:${statusPort}/configuration/backends`, {
      method: 'POST',
      body: JSON.stringify([
        { name: web.name, endpoints: [{ address: '127.0.0.1', port: main.port }], loadBalance: 'round_robin' },
        { name: errorBackend.name, endpoints: [{ address: '127.0.0.1', port: errors.port }], loadBalance: 'round_robin' },
      ]),
    });
    assert.equal(push.status, 201, await push.text());
    for (let i = 0; i < 80 && (await send(httpPort, 'GET', '/')).status !== 200; i++) await sleep(25);
    main.seen.length = 0;
  });

  after(async () => {
    await nginx?.stop();
    for (const { server } of [main, copies, slow, secure, missing, errors]) {
      server?.closeAllConnections();
      server?.close();
    }
  });

  void it('copies method, URI, query and body to the target; the client gets the main backend\'s answer', async () => {
    copies.seen.length = 0;
    const res = await send(httpPort, 'POST', '/copy/items?x=1', 'payload');
    assert.deepEqual([res.status, res.body], [200, 'main answer']);
    const [copy] = await received(copies.seen, 1);
    assert.deepEqual([copy?.method, copy?.url, copy?.body], ['POST', '/copy/items?x=1', 'payload']);
    assert.equal(copy?.headers.host, '127.0.0.1', 'Host defaults to the target\'s host, without its port (as ingress-nginx)');
    assert.equal(copy?.headers['x-forwarded-host'], HOST);
    assert.equal(copy?.headers['x-forwarded-for'], '127.0.0.1');
    assert.equal(copy?.headers['x-forwarded-proto'], 'http');
    assert.equal(copy?.headers['x-real-ip'], '127.0.0.1');
    assert.equal(main.seen.at(-1)?.body, 'payload', 'the main backend still gets the body');
  });

  void it('mirror-request-body off: the copy has no body; mirror-host sets its Host; the path prefix comes before $request_uri', async () => {
    copies.seen.length = 0;
    const res = await send(httpPort, 'PUT', '/nobody/a?y=2', 'secret');
    assert.deepEqual([res.status, res.body], [200, 'main answer']);
    const [copy] = await received(copies.seen, 1);
    assert.deepEqual([copy?.method, copy?.url, copy?.body, copy?.headers['content-length']], ['PUT', '/shadow/nobody/a?y=2', '', undefined]);
    assert.equal(copy?.headers.host, 'shadow.example');
    assert.equal(main.seen.at(-1)?.body, 'secret');
  });

  void it('mirror-request-body off with a chunked request: the copy has no body and announces none', async () => {
    copies.seen.length = 0;
    const res = await send(httpPort, 'POST', '/nobody/chunked', ['sec', 'ret']);
    assert.deepEqual([res.status, res.body], [200, 'main answer']);
    const [copy] = await received(copies.seen, 1);
    assert.deepEqual([copy?.url, copy?.body, copy?.headers['transfer-encoding'], copy?.headers['content-length']], ['/shadow/nobody/chunked', '', undefined, undefined]);
    assert.equal(main.seen.at(-1)?.body, 'secret');
  });

  void it('mirror-request-body on with a chunked request: the copy has the whole body', async () => {
    copies.seen.length = 0;
    await send(httpPort, 'POST', '/copy/chunked', ['pay', 'load']);
    const [copy] = await received(copies.seen, 1);
    assert.deepEqual([copy?.url, copy?.body], ['/copy/chunked', 'payload']);
  });

  void it('a target without $request_uri gets its own path with the client\'s query (as NGINX\'s mirror does)', async () => {
    copies.seen.length = 0;
    await send(httpPort, 'GET', '/fixed/x?q=1');
    const [copy] = await received(copies.seen, 1);
    assert.equal(copy?.url, '/mirror?q=1');
  });

  void it('an https target (a name resolved at load) gets the copy over TLS with the target\'s name as SNI', async () => {
    const res = await send(httpPort, 'POST', '/tls/x?z=3', 'over tls');
    assert.deepEqual([res.status, res.body], [200, 'main answer']);
    const [copy] = await received(secure.seen, 1);
    assert.deepEqual([copy?.method, copy?.url, copy?.body, copy?.headers.host, copy?.servername], ['POST', '/over-tls/tls/x?z=3', 'over tls', 'shadow.example', 'localhost']);
  });

  void it('a copy\'s error status is not sent to the ConfigMap\'s custom error pages (the copy\'s answer is dropped)', async () => {
    const res = await send(httpPort, 'GET', '/missing/page');
    assert.deepEqual([res.status, res.body], [200, 'main answer']);
    assert.equal((await received(missing.seen, 1)).length, 1);
    await sleep(300);
    assert.deepEqual(errors.seen.map((seen) => seen.url), [], 'the error backend got the copy\'s 404');
  });

  void it('a dead mirror does not fail the client\'s request', async () => {
    for (let i = 0; i < 3; i++) assert.deepEqual((await send(httpPort, 'GET', '/dead/x')).status, 200);
  });

  void it('a slow mirror does not fail nor delay the client\'s answer', async () => {
    const res = await send(httpPort, 'GET', '/slow/x');
    assert.deepEqual([res.status, res.body], [200, 'main answer']);
    assert.ok(res.ms < 2000, `the client waited ${res.ms} ms for a mirror that answers after 3000 ms`);
    assert.equal((await received(slow.seen, 1)).length, 1, 'the slow mirror got its copy');
  });

  void it('the metrics log has one line per client request, with the mirrored route\'s labels; none for a copy', async () => {
    const logPath = join(nginx.prefix, 'metrics.log');
    const linesOf = (ingress: string): string[] => readFileSync(logPath, 'utf8').split('\n')
      .filter((line) => line.split('\t')[0]?.split(' ')[4] === ingress);
    await sleep(1200); // the earlier tests' lines are flushed
    const before = linesOf('copy').length;
    copies.seen.length = 0;
    for (let i = 0; i < 5; i++) assert.equal((await send(httpPort, 'GET', `/copy/m${i}`)).status, 200);
    assert.equal((await received(copies.seen, 5)).length, 5);
    // Lines are flushed once a second (buffer=64k flush=1s).
    for (let i = 0; i < 40 && linesOf('copy').length < before + 5; i++) await sleep(100);
    await sleep(1200);
    assert.equal(linesOf('copy').length, before + 5, 'one metrics line per client request');
    assert.doesNotMatch(readFileSync(logPath, 'utf8'), /_mirror-|\/m\d\t/u, 'no line for a copy');
    // NGINX ends a request once its copy is done: the slow mirror's request logged its 3 s.
    const slowBefore = linesOf('slow').length;
    assert.equal((await send(httpPort, 'GET', '/slow/metrics')).status, 200);
    const slowLine = await (async () => {
      for (let i = 0; i < 60 && linesOf('slow').length === slowBefore; i++) await sleep(100);
      return linesOf('slow').at(-1);
    })();
    assert.ok(Number(slowLine?.split('\t')[3]) >= 2.9, `request_time of the slow mirror's request: ${slowLine}`);
    // The upstream time is the main backend's alone (response_duration_seconds is not inflated).
    assert.ok(Number(slowLine?.split('\t')[4]) < 1, `upstream_response_time of the slow mirror's request: ${slowLine}`);
  });

  void it('a slow mirror holds the next request on the same keep-alive connection until its copy is done (NGINX, as ingress-nginx)', async () => {
    // curl sends both on one connection; -w prints each one's time and new connections.
    const { stdout } = await promisify(execFile)('curl', ['-s', '-o', '/dev/null', '-o', '/dev/null', '-w', '%{time_total} %{num_connects}\n',
      '-H', `Host: ${HOST}`, `http://127.0.0.1:${httpPort}/slow/first`, `http://127.0.0.1:${httpPort}/copy/second`]);
    const [first, second] = stdout.trim().split('\n').map((line) => line.split(' ').map(Number));
    assert.ok((first?.[0] ?? 9) < 2, `the first answer took ${first?.[0]} s`);
    assert.deepEqual(second?.[1], 0, 'the second request reused the connection');
    assert.ok((second?.[0] ?? 0) > 2, `the second request waited ${second?.[0]} s for the first one's copy (3 s)`);
    // The second request's own copy may arrive after its answer: wait for it, so no later test sees it.
    for (let waited = 0; waited < 5000 && !copies.seen.some((copy) => copy.url === '/copy/second'); waited += 50) await sleep(50);
  });

  void it('logs no [error] but the dead mirror\'s refused connections', () => {
    const serious = nginx.errorLog().split('\n').filter((line) => /\[(error|alert|crit|emerg)\]/u.test(line));
    assert.ok(serious.length > 0, 'the dead mirror was logged');
    for (const line of serious) assert.match(line, /connect\(\) failed \(111: Connection refused\) while connecting to upstream.*request: "GET \/dead\//u);
  });

  void it('an unmirrored location sends no copy', async () => {
    copies.seen.length = 0;
    await send(httpPort, 'GET', '/other');
    await sleep(100);
    assert.deepEqual(copies.seen, []);
  });
});

void describe('mirror blocks nginx -t refuses, blamed on the Ingress at fault', () => {
  const web = backend('shop-web');
  const bad = mirrored('/bad', 'bad', mirror({ 'mirror-target': 'http://mirror.invalid/$request_uri' }), web.name);
  const good = mirrored('/good', 'good', mirror({ 'mirror-target': 'http://127.0.0.1:9/x' }), web.name);
  const site = (locations: Location[]): Model => model([server('_', [notFound('/')]), server(HOST, locations)], [web]);

  void it('fails nginx -t on a line blamed on that Ingress alone; without it the rest passes', async () => {
    const withBad = site([good, bad]);
    const refused = await refusedByNginx(withBad);
    assert.match(refused.nginxOutput, /host not found in upstream "mirror\.invalid:80"/u);
    assert.deepEqual(ownersOfLine(withBad, refused.conf, refused.line), [ref('bad')]);
    await acceptedByNginx(site([good]));
  });

  void it('an Ingress path taking a mirror location\'s name is blamed, not the Ingress mirroring', async () => {
    const name = (good.policy.mirror as MirrorConfig).name as string;
    const squatter = proxied(`/${name}`, 'exact', web.name, { ingress: ref('squatter'), host: HOST });
    const dataplane = findDataplane();
    const prefix = makePrefix();
    try {
      const confPath = join(prefix, 'nginx.conf');
      const squatted = site([good, squatter]);
      const real = renderConfig(squatted, goldenOptions(dataplane, prefix));
      writeFileSync(confPath, real.conf);
      const refused = await testNginxConf({ dataplane, prefix, confPath }).then(() => assert.fail('nginx -t accepted'), (err: unknown) => err);
      assert.ok(refused instanceof NginxConfigError && refused.refused && refused.line !== null, String(refused));
      assert.match(refused.nginxOutput, /duplicate location/u);
      assert.deepEqual(ownersOfLine(squatted, real.conf, refused.line), [ref('squatter')]);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  });

  void it('a line of a server\'s mirror location is blamed on the Ingresses of that server that use it', () => {
    const shared = mirrored('/also', 'also', bad.policy.mirror as MirrorConfig, web.name);
    const elsewhere = proxied('/', 'prefix', web.name, { ingress: ref('elsewhere'), policy: { mirror: bad.policy.mirror as MirrorConfig }, host: 'other.test' });
    const both = model([server('_', [notFound('/')]), server(HOST, [good, bad, shared]), server('other.test', [elsewhere])], [web]);
    const { conf } = renderConfig(both, goldenOptions());
    const lines = conf.split('\n');
    const name = (bad.policy.mirror as MirrorConfig).name as string;
    const inLocation = lines.findIndex((line) => line.includes(`location = "/${name}"`)) + 2;
    assert.deepEqual(ownersOfLine(both, conf, inLocation), [ref('bad'), ref('also')]);
    const inUpstream = lines.findIndex((line) => line.includes(`upstream "${name}"`)) + 2;
    assert.deepEqual(ownersOfLine(both, conf, inUpstream), [ref('bad'), ref('also'), ref('elsewhere')]);
  });
});
