// The header settings in nginx.conf: http {}'s lines, the proxy-set-headers at
// the end of every copy of the request header list (http {}, gRPC, a location that
// prints it again), add-headers again in a location with add_header lines of its
// own (NGINX inherits none there), and a hand-written model refused before it
// could put a value into nginx.conf that the model's reader would refuse.
// That NGINX accepts the result: golden.test.ts (case header-settings, nginx -t).

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS as MODEL_DEFAULTS } from '../model/features/parse.ts';
import type { HeaderSettings, Model } from '../model/types.ts';
import { RenderError } from './nginx-values.ts';
import { renderConfig } from './render-config.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { backend, goldenOptions, model, proxied, server } from './testdata/model-fixtures.ts';

const HEADERS: HeaderSettings = {
  ...MODEL_DEFAULTS.headerSettings,
  proxySetHeadersConfigMap: 'ingress/custom-headers', addHeadersConfigMap: 'ingress/response-headers',
  proxySetHeaders: [['X-Drop', ''], ['X-Request-Start', 't=${msec}']],
  addHeaders: [['Content-Security-Policy', "default-src 'self'; img-src *"], ['X-Frame-Options', 'DENY']],
  hideHeaders: ['X-Powered-By', 'x-frame-options'],
  underscoresInHeaders: true, ignoreInvalidHeaders: false, serverTokens: true,
};

const CORS = {
  enabled: true, allowOrigin: ['*'], allowMethods: 'GET', allowHeaders: 'Content-Type', exposeHeaders: '', allowCredentials: false, maxAge: 60,
};

function render(headerSettings: HeaderSettings): string {
  const app = backend('default-app-80');
  const settings: Model['settings'] = { ...MODEL_DEFAULTS, headerSettings };
  return renderConfig(model([
    server('app.test', [
      proxied('/', 'prefix', app.name),
      proxied('/cors', 'prefix', app.name, { policy: { cors: CORS } }),
      proxied('/vhost', 'prefix', app.name, { policy: { upstreamHeaders: { host: 'internal.svc', prefix: null } } }),
    ]),
  ], [app], settings), goldenOptions()).conf;
}

/** The lines of `conf` between the `location` line naming `path` and the next `location`. */
function locationBlock(conf: string, path: string): string {
  const start = conf.indexOf(`location "${path}"`) >= 0 ? conf.indexOf(`location "${path}"`) : conf.indexOf(`location ${path} `);
  assert.ok(start >= 0, `location ${path} rendered`);
  const next = conf.indexOf('\n        location ', start + 1);
  return conf.slice(start, next < 0 ? undefined : next);
}

void describe('header settings in nginx.conf', () => {
  void it('the defaults: server_tokens off, underscores off, invalid headers ignored, nothing else', () => {
    const conf = render(MODEL_DEFAULTS.headerSettings);
    assert.match(conf, /\n {4}server_tokens off;\n {4}underscores_in_headers off;\n {4}ignore_invalid_headers on;\n/u);
    assert.doesNotMatch(conf, /proxy_hide_header|add_header "/u);
  });

  void it('http {}: the switches, hidden headers (hide-headers, then add-headers names) and the added headers', () => {
    const conf = render(HEADERS);
    assert.match(conf, /\n {4}server_tokens on;\n {4}underscores_in_headers on;\n {4}ignore_invalid_headers off;\n/u);
    assert.match(conf, /\n {4}proxy_hide_header "X-Powered-By";\n {4}proxy_hide_header "x-frame-options";\n {4}proxy_hide_header "Content-Security-Policy";\n {4}add_header/u);
    assert.equal(conf.match(/proxy_hide_header "X-Frame-Options"/giu)?.length, 1, 'a name hidden and added is hidden once');
    assert.match(conf, /\n {4}add_header "Content-Security-Policy" "default-src 'self'; img-src \*" always;\n {4}add_header "X-Frame-Options" "DENY" always;\n/u);
  });

  void it('the longest name the model takes (46) fits NGINX\'s header hash: nginx -t accepts it in every list', async () => {
    const name = `X-${'a'.repeat(44)}`;
    await assertNginxAccepts(render({ ...HEADERS, proxySetHeaders: [[name, 'v']], addHeaders: [[name, 'v']], hideHeaders: [name] }));
  });
  void it('proxy-set-headers end each copy of the header list, as proxy_ and grpc_set_header', () => {
    const conf = render(HEADERS);
    assert.match(conf, /proxy_set_header Proxy "";\n {4}proxy_set_header "X-Drop" "";\n {4}proxy_set_header "X-Request-Start" "t=\$\{msec\}";\n/u);
    assert.match(conf, /grpc_set_header "X-Drop" "";\n {4}grpc_set_header "X-Request-Start" "t=\$\{msec\}";\n/u);
    assert.match(locationBlock(conf, '/vhost/'), /proxy_set_header Host "internal.svc";[\s\S]*proxy_set_header "X-Request-Start" "t=\$\{msec\}";/u);
  });

  void it('a location with add_header lines of its own (CORS) adds the add-headers again; others inherit them', () => {
    const conf = render(HEADERS);
    assert.match(locationBlock(conf, '/cors/'), /add_header "Content-Security-Policy" "default-src 'self'; img-src \*" always;\n\s+add_header "X-Frame-Options" "DENY" always;/u);
    assert.doesNotMatch(locationBlock(conf, '/vhost/'), /add_header/u);
  });

  const unsafe: [string, Partial<HeaderSettings>][] = [
    ['a quote in a value', { proxySetHeaders: [['X-A', 'a"; deny all; "']] }],
    ['a newline in an added value', { addHeaders: [['X-A', 'a\nb']] }],
    ['an unknown variable', { proxySetHeaders: [['X-A', '$nope']] }],
    ['a name with a space', { addHeaders: [['X A', 'v']] }],
    ['a hidden name with ;', { hideHeaders: ['X;A'] }],
    ['a switch that is no boolean', { serverTokens: 'on' as unknown as boolean }],
  ];
  for (const [name, change] of unsafe) {
    void it(`a hand-written model is refused: ${name}`, () => {
      assert.throws(() => render({ ...HEADERS, ...change }), (error: unknown) => error instanceof RenderError && error.code === 'UnsafeValue');
    });
  }
});
