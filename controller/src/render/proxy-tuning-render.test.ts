// What the proxy tuning features print (features/proxy-buffers.njk, proxy-rewrites.njk,
// proxy-tuning-http.njk, upstream-keepalive.njk; render/proxy-tuning-view.ts): the ConfigMap's
// values once in http {} and the balancer upstreams, a location only what its Ingress changes,
// and limit-rate's `proxy_buffering on` never printed twice. Every row's conf goes through the
// real `nginx -t` (fails, never skips, without the runtime: the test command runs setup first),
// so each combination the model accepts is one NGINX accepts.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { parseAnnotations, readConfigMap } from '../model/features/testing.ts';
import type { Location, Model, Policy } from '../model/types.ts';
import { renderConfig } from './render-config.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { backend, goldenOptions, model, proxied, server } from './testdata/model-fixtures.ts';

const APP = backend('default-app');

/** The policy an Ingress with `annotations` gets (over the ConfigMap's `settings`). */
function policyOf(annotations: Record<string, string>, settings: Model['settings']): Policy {
  const parsed = parseAnnotations(annotations, settings);
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return parsed.value.policy;
}

function settingsOf(configMap: Record<string, string>): Model['settings'] {
  const read = readConfigMap(configMap);
  assert.deepEqual(read.failures, []);
  return read.settings;
}

/** The text of the location block `location "<path>" {`. */
function block(conf: string, path: string): string {
  const start = conf.indexOf(`location "${path}" {`);
  assert.ok(start >= 0, `no location ${path}`);
  return conf.slice(start, conf.indexOf('\n        }', start));
}

/** The http {} part before the first upstream: the globals. */
function httpGlobals(conf: string): string {
  return conf.slice(conf.indexOf('http {'), conf.indexOf('upstream upstream_balancer'));
}

interface Row {
  name: string;
  configMap?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Lines of the location /app/. */
  location: string[];
  /** Lines the location must not have. */
  locationLacks?: string[];
  /** Lines of http {} (before the upstreams) or the balancer upstream. */
  http?: string[];
}

const rows: Row[] = [
  {
    name: 'defaults: ingress-nginx\'s values in http {}, nothing in the location',
    location: [], locationLacks: ['proxy_buffer', 'proxy_redirect', 'proxy_cookie', 'proxy_http_version', 'client_body_buffer_size'],
    http: ['client_header_buffer_size "1k";', 'large_client_header_buffers 4 "8k";', 'client_body_buffer_size "8k";', 'keepalive_timeout 75s;',
      'keepalive_requests 1000;', 'proxy_http_version "1.1";', 'proxy_buffering "off";', 'proxy_buffer_size "4k";', 'proxy_buffers 4 "4k";',
      'proxy_max_temp_file_size "1024m";', 'proxy_request_buffering "on";', 'proxy_redirect off;',
      '        keepalive 320;\n        keepalive_time "1h";\n        keepalive_timeout 60s;\n        keepalive_requests 10000;', '\'\' \'\';'],
  },
  {
    name: 'the buffering annotations: the location prints each, proxy_buffers with the buffer size',
    annotations: { 'proxy-buffering': 'on', 'proxy-buffer-size': '16k', 'proxy-buffers-number': '8', 'proxy-busy-buffers-size': '64k',
      'proxy-max-temp-file-size': '0', 'proxy-request-buffering': 'off', 'proxy-http-version': '1.0', 'client-body-buffer-size': '1m' },
    location: ['proxy_buffering "on";', 'proxy_buffer_size "16k";', 'proxy_buffers 8 "16k";', 'proxy_busy_buffers_size "64k";',
      'proxy_max_temp_file_size "0";', 'proxy_request_buffering "off";', 'proxy_http_version "1.0";', 'client_body_buffer_size "1m";'],
  },
  {
    name: 'proxy-buffers-number alone prints proxy_buffers with the ConfigMap\'s size, not proxy_buffer_size',
    configMap: { 'proxy-buffer-size': '8k' }, annotations: { 'proxy-buffers-number': '16' },
    location: ['proxy_buffers 16 "8k";'], locationLacks: ['proxy_buffer_size'], http: ['proxy_buffer_size "8k";', 'proxy_buffers 4 "8k";'],
  },
  {
    name: 'the ConfigMap\'s values in http {}; an annotation equal to them prints nothing',
    configMap: { 'proxy-buffering': 'on', 'proxy-http-version': '1.0', 'client-body-buffer-size': '64k' }, annotations: { 'proxy-buffering': 'on' },
    location: [], locationLacks: ['proxy_buffering', 'proxy_http_version'], http: ['proxy_buffering "on";', 'proxy_http_version "1.0";', 'client_body_buffer_size "64k";'],
  },
  {
    name: 'limit-rate with proxy-buffering off: buffering on, printed once (limit-rate\'s)',
    annotations: { 'proxy-buffering': 'off', 'limit-rate': '100' }, configMap: { 'proxy-buffering': 'on' },
    location: ['proxy_buffering on;\n            limit_rate 100k;'], locationLacks: ['proxy_buffering "off"', 'proxy_buffering "on"'],
  },
  {
    name: 'limit-rate with proxy-buffering on: printed once',
    annotations: { 'proxy-buffering': 'on', 'limit-rate': '100' },
    location: ['proxy_buffering on;'], locationLacks: ['proxy_buffering "on"'],
  },
  {
    name: 'cookie and redirect rewriting: each word quoted, a ~ regex kept',
    annotations: { 'proxy-cookie-domain': 'backend.internal app.example', 'proxy-cookie-path': '~/v1/ /', 'proxy-redirect-from': 'http://backend.internal/', 'proxy-redirect-to': '/app/' },
    location: ['proxy_cookie_domain "backend.internal" "app.example";', 'proxy_cookie_path "~/v1/" "/";', 'proxy_redirect "http://backend.internal/" "/app/";'],
  },
  {
    name: 'proxy-redirect-from without a to (ConfigMap\'s off): off, as the http level already says',
    annotations: { 'proxy-redirect-from': 'http://backend.internal/' }, location: [], locationLacks: ['proxy_redirect'], http: ['proxy_redirect off;'],
  },
  {
    name: 'the ConfigMap\'s rewriting in http {}; an Ingress turning it off prints off',
    configMap: { 'proxy-cookie-path': '/ /g/', 'proxy-redirect-from': 'http://global/', 'proxy-redirect-to': '/', 'proxy-cookie-domain': 'a b' },
    annotations: { 'proxy-cookie-path': 'off', 'proxy-redirect-from': 'off', 'proxy-cookie-domain': 'off' },
    location: ['proxy_cookie_path off;', 'proxy_redirect off;', 'proxy_cookie_domain off;'],
    http: ['proxy_cookie_path "/" "/g/";', 'proxy_redirect "http://global/" "/";', 'proxy_cookie_domain "a" "b";'],
  },
  {
    name: 'connection-proxy-header: the location sets the variable http {}\'s one header list sends, no list of its own',
    annotations: { 'connection-proxy-header': 'close' },
    location: ['set $connection_upgrade "close";'], locationLacks: ['proxy_set_header'],
    http: ['proxy_set_header Connection $connection_upgrade;'],
  },
  {
    name: 'client and upstream connection keys',
    configMap: { 'client-header-buffer-size': '4k', 'large-client-header-buffers': '8 32k', 'client-header-timeout': '10', 'client-body-timeout': '20',
      'keep-alive': '5', 'keep-alive-requests': '50', 'upstream-keepalive-connections': '16', 'upstream-keepalive-time': '30m',
      'upstream-keepalive-timeout': '15', 'upstream-keepalive-requests': '200' },
    location: [],
    http: ['client_header_buffer_size "4k";', 'client_header_timeout 10s;', 'large_client_header_buffers 8 "32k";', 'client_body_timeout 20s;',
      'keepalive_timeout 5s;', 'keepalive_requests 50;',
      '        keepalive 16;\n        keepalive_time "30m";\n        keepalive_timeout 15s;\n        keepalive_requests 200;'],
  },
  {
    name: 'upstream-keepalive-connections 0: no keepalive, Connection: close to backends',
    configMap: { 'upstream-keepalive-connections': '0' }, location: [],
    http: ['\'\' close;', 'balancer_by_lua_block { resty_ingress.balance() }\n    }'],
  },
];

void describe('proxy tuning: rendered', () => {
  for (const row of rows) {
    void it(row.name, async () => {
      const settings = settingsOf(row.configMap ?? {});
      const policy = policyOf(row.annotations ?? {}, settings);
      const location: Location = proxied('/app', 'prefix', APP.name, { policy });
      const conf = renderConfig(model([server('app.example', [location])], [APP], settings), goldenOptions()).conf;
      const own = block(conf, '/app/');
      for (const line of row.location) assert.ok(own.includes(`\n            ${line}`), `location has ${line}:\n${own}`);
      for (const text of row.locationLacks ?? []) assert.ok(!own.includes(text), `location lacks ${text}:\n${own}`);
      const globals = `${httpGlobals(conf)}${conf.slice(conf.indexOf('upstream upstream_balancer'), conf.indexOf('upstream upstream_balancer') + 400)}`;
      for (const text of row.http ?? []) assert.ok(globals.includes(text), `http has ${text}`);
      await assertNginxAccepts(conf);
    });
  }

  void it('the boundary combinations the model accepts are ones nginx -t accepts', async () => {
    const cases: Record<string, string>[] = [
      { 'proxy-buffers-number': '3' },
      { 'proxy-busy-buffers-size': '12k' },
      { 'proxy-busy-buffers-size': '4k' },
      { 'proxy-max-temp-file-size': '4k' },
      { 'proxy-buffer-size': '16m', 'proxy-buffers-number': '3' },
      { 'proxy-buffer-size': '1', 'proxy-busy-buffers-size': '1', 'proxy-max-temp-file-size': '1' },
      { 'proxy-buffers-number': '256', 'proxy-buffer-size': '64k' },
    ];
    const locations = cases.map((annotations, i) => proxied(`/c${i}`, 'prefix', APP.name, { policy: policyOf(annotations, settingsOf({})) }));
    await assertNginxAccepts(renderConfig(model([server('app.example', locations)], [APP]), goldenOptions()).conf);
  });

  void it('the extremes of the connection keys are ones nginx -t accepts', async () => {
    const settings = settingsOf({ 'large-client-header-buffers': '64 1m', 'client-header-buffer-size': '1m', 'keep-alive': '0',
      'upstream-keepalive-time': '7d', 'upstream-keepalive-timeout': '604800', 'upstream-keepalive-connections': '100000', 'client-body-buffer-size': '64m' });
    await assertNginxAccepts(renderConfig(model([server('app.example', [proxied('/', 'prefix', APP.name)])], [APP], settings), goldenOptions()).conf);
    const smallest = settingsOf({ 'large-client-header-buffers': '1 512', 'client-header-buffer-size': '1', 'upstream-keepalive-time': '1ms' });
    await assertNginxAccepts(renderConfig(model([server('app.example', [proxied('/', 'prefix', APP.name)])], [APP], smallest), goldenOptions()).conf);
  });
});
