// backend-protocol and proxy-ssl-* as rendered: one row per protocol and TLS
// combination, each the directives its location must and must not hold (as
// ingress-nginx's nginx.tmpl/buildProxyPass print them, with the differences
// the features document), and every conf checked by the real `nginx -t` with
// the proxy-ssl files written as the controller writes them
// (nginx/backend-tls-files.ts). The http-level grpc_*/fastcgi_* defaults and
// `http2 on` are checked once.

import { strict as assert } from 'node:assert';
import { rmSync, statSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { readBackendTlsSecret } from '../model/backend-tls.ts';
import { writeBackendTlsFiles } from '../nginx/backend-tls-files.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { createSelfSignedCertificate } from '../tls/self-signed.ts';
import type { BackendProtocol, BackendTlsSecret, Model, Policy, ProxySslConfig } from '../model/types.ts';
import { renderConfig } from './render-config.ts';
import { backend, deepFreeze, goldenOptions, model, proxied, server } from './testdata/model-fixtures.ts';
import { checkConfig, makePrefix } from './testdata/nginx-runner.ts';

const ca = createSelfSignedCertificate({ dnsNames: ['backend.test'] });
const client = createSelfSignedCertificate({ commonName: 'client' });
const b64 = (text: string): string => Buffer.from(text).toString('base64');

function material(data: Readonly<Record<string, string>>): BackendTlsSecret {
  const read = readBackendTlsSecret({ metadata: { namespace: 'default', name: 'backend-ca' }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) }, 'default/backend-ca');
  if (!read.ok) throw new Error(read.reason);
  return read.value;
}

const BOTH = material({ 'ca.crt': ca.cert, 'tls.crt': client.cert, 'tls.key': client.key });
const CA_ONLY = material({ 'ca.crt': ca.cert });
const SSL: ProxySslConfig = { secret: 'default/backend-ca', verify: true, verifyDepth: 2, name: null, serverName: null, protocols: ['TLSv1.2', 'TLSv1.3'], ciphers: 'HIGH:!aNULL' };

interface Row {
  readonly name: string;
  readonly protocol?: BackendProtocol;
  readonly policy?: Policy;
  readonly secrets?: readonly BackendTlsSecret[];
  /** Lines the location holds (`<prefix>` and `<fp>` stand for the prefix and BOTH's fingerprint). */
  readonly has: readonly string[];
  /** Directive names it must not hold. */
  readonly lacks: readonly string[];
}

const base = (fp: string): string => `<prefix>/backend-tls/default_backend-ca_${fp}`;

const rows: Row[] = [
  { name: 'HTTP: proxy_pass http://, no TLS', protocol: 'HTTP', has: ['proxy_pass http://upstream_balancer;'], lacks: ['proxy_ssl_server_name', 'grpc_pass', 'fastcgi_param'] },
  { name: 'HTTPS: proxy_pass https:// with the request host as SNI', protocol: 'HTTPS', has: ['proxy_ssl_server_name on;', 'proxy_ssl_name "$host";', 'proxy_pass https://upstream_balancer;'], lacks: ['proxy_ssl_verify'] },
  { name: 'AUTO_HTTP: the client\'s scheme', protocol: 'AUTO_HTTP', has: ['proxy_pass $scheme://upstream_balancer;'], lacks: ['grpc_pass'] },
  { name: 'GRPC: grpc_pass grpc:// to the same balancer', protocol: 'GRPC', has: ['grpc_pass grpc://upstream_balancer;'], lacks: ['proxy_pass', 'grpc_ssl_name', 'grpc_set_header'] },
  { name: 'GRPCS: grpc_pass grpcs:// with grpc_ssl SNI', protocol: 'GRPCS', has: ['grpc_ssl_server_name on;', 'grpc_ssl_name "$host";', 'grpc_pass grpcs://upstream_balancer;'], lacks: ['proxy_pass', 'proxy_ssl_name'] },
  {
    name: 'GRPC with proxy timeouts: the grpc_ forms (NGINX\'s grpc module ignores proxy_*)', protocol: 'GRPC',
    policy: { proxy: { bodySize: '8m', connectTimeout: 3, readTimeout: 600, sendTimeout: 60 } },
    has: ['client_max_body_size "8m";', 'grpc_connect_timeout 3s;', 'grpc_read_timeout 600s;'], lacks: ['proxy_connect_timeout', 'proxy_read_timeout'],
  },
  {
    name: 'GRPC with upstream-vhost: the whole header list again as grpc_set_header, no Upgrade/Connection', protocol: 'GRPC',
    policy: { upstreamHeaders: { host: 'internal.svc', prefix: null } },
    has: ['grpc_set_header Host "internal.svc";', 'grpc_set_header X-Forwarded-For $resty_forwarded_for;', 'grpc_set_header X-Forwarded-Host $best_http_host;'],
    lacks: ['proxy_set_header', 'grpc_set_header Upgrade', 'grpc_set_header Connection'],
  },
  {
    name: 'GRPC with proxy-next-upstream-tries: the grpc_ form', protocol: 'GRPC',
    policy: { nextUpstream: { conditions: ['error', 'timeout', 'http_503'], timeout: 0, tries: 2 } },
    has: ['grpc_next_upstream "error" "timeout" "http_503";', 'grpc_next_upstream_tries 2;'], lacks: ['proxy_next_upstream'],
  },
  {
    name: 'FCGI: fastcgi_pass with the stock params, HTTP_PROXY emptied, and the index', protocol: 'FCGI',
    policy: { fastcgi: { index: 'index.php', paramsConfigMap: null, params: null } },
    has: ['fastcgi_param SCRIPT_NAME $fastcgi_script_name;', 'fastcgi_param REDIRECT_STATUS 200;', 'fastcgi_param HTTP_PROXY "";', 'fastcgi_index "index.php";', 'fastcgi_pass upstream_balancer;'],
    lacks: ['proxy_pass'],
  },
  {
    name: 'FCGI with the params of a ConfigMap, after the stock ones as ingress-nginx prints them; an empty value is ""', protocol: 'FCGI',
    policy: { fastcgi: { index: null, paramsConfigMap: 'fcgi-params', params: [['REDIRECT_STATUS', ''], ['SCRIPT_FILENAME', '/srv/app$fastcgi_script_name']] } },
    has: ['fastcgi_param "REDIRECT_STATUS" "";', 'fastcgi_param "SCRIPT_FILENAME" "/srv/app$fastcgi_script_name";'], lacks: ['fastcgi_index'],
  },
  { name: 'fastcgi-index without FCGI: nothing', protocol: 'HTTP', policy: { fastcgi: { index: 'index.php', paramsConfigMap: null, params: null } }, has: ['proxy_pass http://upstream_balancer;'], lacks: ['fastcgi_index'] },
  {
    name: 'HTTPS with a Secret of all three: CA, verification and the client certificate from files', protocol: 'HTTPS', policy: { proxySsl: SSL }, secrets: [BOTH],
    has: [`proxy_ssl_trusted_certificate "${base(BOTH.fingerprint)}.ca.pem";`, 'proxy_ssl_ciphers "HIGH:!aNULL";', 'proxy_ssl_protocols "TLSv1.2" "TLSv1.3";', 'proxy_ssl_verify on;',
      'proxy_ssl_verify_depth 2;', `proxy_ssl_certificate "${base(BOTH.fingerprint)}.pem";`, `proxy_ssl_certificate_key "${base(BOTH.fingerprint)}.pem";`, 'proxy_ssl_name "$host";',
      'proxy_pass https://upstream_balancer_tls_'],
    lacks: ['return 503', 'proxy_pass https://upstream_balancer;'],
  },
  {
    name: 'HTTPS with a CA-only Secret: no client certificate', protocol: 'HTTPS', policy: { proxySsl: { ...SSL, verify: false } }, secrets: [CA_ONLY],
    has: [`proxy_ssl_trusted_certificate "${base(CA_ONLY.fingerprint)}.ca.pem";`, 'proxy_ssl_verify off;'], lacks: ['proxy_ssl_certificate ', 'proxy_ssl_certificate_key'],
  },
  {
    name: 'proxy-ssl-name and -server-name off with a Secret', protocol: 'HTTPS', policy: { proxySsl: { ...SSL, name: 'backend.test', serverName: false } }, secrets: [BOTH],
    has: ['proxy_ssl_server_name off;', 'proxy_ssl_name "backend.test";'], lacks: ['proxy_ssl_name "$host"'],
  },
  { name: 'proxy-ssl-name without a Secret: ignored, as in ingress-nginx (and the shared upstream)', protocol: 'HTTPS', policy: { proxySsl: { ...SSL, secret: null, name: 'backend.test' } }, has: ['proxy_ssl_name "$host";', 'proxy_pass https://upstream_balancer;'], lacks: ['proxy_ssl_trusted_certificate', 'backend.test"'] },
  {
    name: 'GRPCS with a Secret: the grpc_ssl_ forms', protocol: 'GRPCS', policy: { proxySsl: SSL }, secrets: [BOTH],
    has: [`grpc_ssl_trusted_certificate "${base(BOTH.fingerprint)}.ca.pem";`, 'grpc_ssl_verify on;', `grpc_ssl_certificate "${base(BOTH.fingerprint)}.pem";`, 'grpc_pass grpcs://upstream_balancer_tls_'],
    lacks: ['proxy_ssl_', 'grpc_pass grpcs://upstream_balancer;'],
  },
  { name: 'a Secret the model does not hold: 503 instead of the pass', protocol: 'HTTPS', policy: { proxySsl: SSL }, has: ['return 503;'], lacks: ['proxy_pass', 'proxy_ssl_trusted_certificate'] },
  { name: 'FCGI with a Secret: no TLS directives', protocol: 'FCGI', policy: { proxySsl: SSL }, secrets: [BOTH], has: ['fastcgi_pass upstream_balancer;'], lacks: ['proxy_ssl_', 'grpc_ssl_', 'fastcgi_ssl'] },
];

/** The text of the `location = "/x"` block. */
function locationBlock(conf: string): string {
  const start = conf.indexOf('location = "/x" {');
  assert.ok(start >= 0, 'the location is rendered');
  return conf.slice(start, conf.indexOf('\n        }', start));
}

const prefixes: string[] = [];
after(() => { for (const prefix of prefixes) rmSync(prefix, { recursive: true, force: true }); });

function modelOf(row: Row): Model {
  const policy: Policy = { ...(row.protocol === undefined ? {} : { backendProtocol: { protocol: row.protocol } }), ...row.policy };
  const built = model([server('shop.test', [proxied('/x', 'exact', 'default-web', { policy })])], [backend('default-web')]);
  return deepFreeze({ ...built, ...(row.secrets === undefined ? {} : { backendTls: row.secrets }) });
}

void describe('backend-protocol and proxy-ssl as rendered, accepted by nginx -t', () => {
  const dataplane = findDataplane();
  for (const row of rows) {
    void it(row.name, async () => {
      const prefix = makePrefix();
      prefixes.push(prefix);
      const built = modelOf(row);
      writeBackendTlsFiles(prefix, built.backendTls);
      const { conf } = renderConfig(built, goldenOptions(dataplane, prefix));
      const block = locationBlock(conf);
      for (const line of row.has) assert.ok(block.includes(line.replaceAll('<prefix>', prefix)), `missing ${line}:\n${block}`);
      for (const name of row.lacks) assert.ok(!block.includes(name), `unexpected ${name}:\n${block}`);
      assert.ok(!conf.includes('PRIVATE KEY'), 'no key material in nginx.conf');
      await checkConfig(dataplane, prefix, conf);
    });
  }

  void it('FCGI with basic auth on a server with client certificates: one rewrite phase (the certificate check first: it replaces the server\'s), one access phase', async () => {
    const prefix = makePrefix();
    prefixes.push(prefix);
    const policy: Policy = { backendProtocol: { protocol: 'FCGI' }, basicAuth: { type: 'basic', secret: { namespace: null, name: 'users' }, secretType: 'auth-file', realm: '' } };
    const site = { ...server('shop.test', [proxied('/x', 'exact', 'default-web', { policy })]), clientAuth: { passCertificate: false } };
    const { conf } = renderConfig(model([site], [backend('default-web')]), goldenOptions(dataplane, prefix));
    const phase = (name: string): (string | undefined)[] => [...locationBlock(conf).matchAll(new RegExp(`${name}_by_lua_block \\{ ([^\\n]*) \\}`, 'gu'))].map((m) => m[1]);
    const rewrite = phase('rewrite');
    assert.equal(rewrite.length, 1, 'one rewrite phase in the location');
    assert.match(rewrite[0] ?? '', /^resty_ingress\.client_cert\("shop\.test"\); require\("resty_ingress\.fastcgi"\)\.check\(/u);
    const access = phase('access');
    assert.equal(access.length, 1, 'one access phase in the location');
    assert.match(access[0] ?? '', /^resty_ingress\.auth\("/u);
    await checkConfig(dataplane, prefix, conf);
  });

  void it('http {}: HTTP/2 on every listener and the grpc/fastcgi forms of the proxy defaults', () => {
    const { conf } = renderConfig(modelOf(rows[0] as Row), { ...goldenOptions(), httpsPort: undefined });
    const http = conf.slice(conf.indexOf('http {'), conf.indexOf('upstream upstream_balancer'));
    for (const line of ['http2 on;', 'grpc_set_header Host $best_http_host;', 'grpc_set_header X-Forwarded-For $resty_forwarded_for;', 'grpc_connect_timeout 5s;', 'grpc_read_timeout 60s;',
      'grpc_next_upstream_tries 3;', 'fastcgi_connect_timeout 5s;', 'fastcgi_next_upstream_tries 3;']) {
      assert.ok(http.includes(line), `missing ${line} in http {} without --https-port`);
    }
    assert.ok(!http.includes('grpc_set_header Connection'), 'no connection-specific header over HTTP/2');
  });

  void it('the files: 0700 folder, 0600 files, named by fingerprint; a rotation keeps the previous ones one write', () => {
    const prefix = makePrefix();
    prefixes.push(prefix);
    const first = writeBackendTlsFiles(prefix, [BOTH]);
    assert.deepEqual([...first].sort(), [`default_backend-ca_${BOTH.fingerprint}.ca.pem`, `default_backend-ca_${BOTH.fingerprint}.pem`]);
    assert.equal(statSync(`${prefix}/backend-tls`).mode & 0o777, 0o700);
    for (const name of first) assert.equal(statSync(`${prefix}/backend-tls/${name}`).mode & 0o777, 0o600, name);
    const second = writeBackendTlsFiles(prefix, [CA_ONLY], first);
    assert.ok(statSync(`${prefix}/backend-tls/default_backend-ca_${BOTH.fingerprint}.pem`).isFile(), 'the running conf may still name the old files');
    writeBackendTlsFiles(prefix, [CA_ONLY], second);
    assert.throws(() => statSync(`${prefix}/backend-tls/default_backend-ca_${BOTH.fingerprint}.pem`), /ENOENT/u, 'two writes later the old files are gone');
    writeBackendTlsFiles(prefix, [], new Set());
    assert.throws(() => statSync(`${prefix}/backend-tls`), /ENOENT/u, 'no Secret: no folder');
  });

  void it('one upstream per proxy-ssl policy, with the balancer and keepalive after it; equal policies share one; nginx -t accepts it', async () => {
    const prefix = makePrefix();
    prefixes.push(prefix);
    const other: ProxySslConfig = { ...SSL, verify: false };
    const location = (path: string, proxySsl?: ProxySslConfig): ReturnType<typeof proxied> =>
      proxied(path, 'exact', 'default-web', { policy: { backendProtocol: { protocol: 'HTTPS' }, ...(proxySsl === undefined ? {} : { proxySsl }) } });
    const built = deepFreeze({
      ...model([server('shop.test', [location('/a', SSL), location('/b', other), location('/plain')]), server('blog.test', [location('/c', SSL)])], [backend('default-web')]),
      backendTls: [BOTH],
    });
    writeBackendTlsFiles(prefix, built.backendTls);
    const { conf } = renderConfig(built, goldenOptions(dataplane, prefix));
    const upstreams = [...conf.matchAll(/upstream (upstream_balancer_tls_[0-9a-f]{12}) \{\n\s+server 0\.0\.0\.1;[^\n]*\n\s+balancer_by_lua_block \{ resty_ingress\.balance\(\) \}\n\s+(?:#[^\n]*\n\s+)?keepalive \d+;/gu)].map((m) => m[1]);
    assert.equal(upstreams.length, 2, 'two policies, two upstreams');
    const passes = [...conf.matchAll(/proxy_pass https:\/\/(upstream_balancer\w*);/gu)].map((m) => m[1]);
    assert.deepEqual(passes.filter((name) => name === 'upstream_balancer').length, 1, 'the location without a Secret keeps the shared upstream');
    assert.deepEqual(new Set(passes.filter((name) => name !== 'upstream_balancer')), new Set(upstreams));
    await checkConfig(dataplane, prefix, conf);
  });
});
