// log-format-upstream reaches nginx.conf as written, so the grammar is the
// wall: every row that could break out of the quoted string, smuggle a
// directive or name a variable NGINX does not know must be refused.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { DEFAULT_LOG_FORMAT, isLogFormatVariable, MAX_LOG_FORMAT_LENGTH, parseLogFormat } from './log-format.ts';

const accepted: { name: string; format: string }[] = [
  { name: "ingress-nginx's upstreaminfo default", format: DEFAULT_LOG_FORMAT },
  { name: 'a JSON object (quotes and braces are text inside the quoted string)', format: '{"status": $status, "ua": "$http_user_agent"}' },
  { name: 'braced variable names', format: '${remote_addr}:${remote_port}' },
  { name: 'prefix families', format: '$arg_page $cookie_session $sent_http_content_type $upstream_http_server $http_x_request_id' },
  { name: 'text without variables', format: 'static text' },
  { name: 'ingress-nginx\'s per-location names', format: '$namespace $ingress_name $service_name $service_port' },
  { name: 'TLS, proxy protocol and upstream cache names', format: '$ssl_client_s_dn $ssl_curve $proxy_protocol_addr $upstream_cache_status $http2' },
  { name: 'the longest NGINX reads (4094 characters)', format: `${'x'.repeat(4086)} $status` },
];

const refused: { name: string; format: string; reason: RegExp }[] = [
  { name: 'a single quote ends the quoted string', format: "$status' ; return 200 '", reason: /printable ASCII/ },
  { name: 'a semicolon would end the directive', format: '$status; error_log /tmp/x', reason: /printable ASCII/ },
  { name: 'a backslash escapes', format: '$status \\x27', reason: /printable ASCII/ },
  { name: 'a newline starts a new directive', format: '$status\naccess_log /etc/passwd', reason: /printable ASCII/ },
  { name: 'a tab', format: '$status\t$request', reason: /printable ASCII/ },
  { name: 'non-ASCII text', format: '$status é', reason: /printable ASCII/ },
  { name: 'an unknown variable (ingress-nginx per-location name we do not set)', format: '$namespace $location_path', reason: /\$location_path is not provided/ },
  { name: 'a name NGINX has only in its stream module', format: '$bytes_received', reason: /\$bytes_received is not provided/ },
  { name: 'a regex capture', format: '$1', reason: /\$1 is not provided/ },
  { name: 'a bare prefix', format: '$http_', reason: /\$http_ is not provided/ },
  { name: 'upper case (NGINX variable names here are lower case)', format: '$Status', reason: /\$Status is not provided/ },
  { name: 'a lone dollar', format: 'cost $ 5', reason: /does not start a variable name/ },
  { name: 'an unclosed brace', format: '${status', reason: /does not start a variable name/ },
  { name: 'empty', format: '', reason: /non-empty/ },
  { name: 'only spaces', format: '   ', reason: /non-empty/ },
  { name: 'too long', format: `$status${' '.repeat(MAX_LOG_FORMAT_LENGTH)}`, reason: /longer than/ },
  // nginx -t failed on it ("too long parameter"): render/properties.test.ts found it.
  { name: 'one character longer than NGINX reads (4095)', format: `${'x'.repeat(4087)} $status`, reason: /longer than 4094/ },
];

void describe('parseLogFormat', () => {
  for (const row of accepted) {
    void it(`accepts ${row.name}`, () => {
      assert.deepEqual(parseLogFormat(row.format), { ok: true, value: row.format });
    });
  }
  for (const row of refused) {
    void it(`refuses ${row.name}`, () => {
      const result = parseLogFormat(row.format);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.reason, row.reason);
    });
  }
});

void describe('isLogFormatVariable', () => {
  const rows: { name: string; variable: string; known: boolean }[] = [
    { name: 'a core variable', variable: 'request_time', known: true },
    { name: 'our upstream name', variable: 'proxy_upstream_name', known: true },
    { name: "ingress-nginx's $req_id (mapped in http.njk)", variable: 'req_id', known: true },
    { name: 'a header by prefix', variable: 'http_x_forwarded_for', known: true },
    { name: "ingress-nginx's $best_http_host (client-address-http.njk)", variable: 'best_http_host', known: true },
    { name: "ingress-nginx's $pass_port (client-address-http.njk)", variable: 'pass_port', known: true },
    { name: 'the PROXY header\'s client address', variable: 'proxy_protocol_addr', known: true },
    { name: 'a map of ours that is no ingress-nginx name', variable: 'resty_forwarded_for', known: false },
    { name: 'a prefix with a dash (NGINX uses underscores)', variable: 'http_x-forwarded-for', known: false },
    { name: 'our internal route is not offered (unset outside proxied locations)', variable: 'resty_route', known: false },
  ];
  for (const row of rows) {
    void it(row.name, () => assert.equal(isLogFormatVariable(row.variable), row.known));
  }
});
