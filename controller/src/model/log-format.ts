// log-format-upstream: a ConfigMap string that becomes NGINX's `log_format`
// verbatim, so it is held to a grammar instead of being escaped. The render
// step prints it single-quoted; what could end or bend that string (`'`,
// `\`, `;`, control characters) is refused here. `"`, `{` and `}` are
// allowed because a JSON log format (the reason the key exists) needs them,
// and inside a quoted NGINX string they are plain text. Every `$variable`
// must be one NGINX 1.26 or our nginx.conf defines: an unknown name would
// make `nginx -t` fail and the reload with it.

import { accept, refuse, type Checked } from './checked.ts';

/**
 * ingress-nginx's default `upstreaminfo` format, unchanged. `$req_id` and
 * `$proxy_alternative_upstream_name` are ingress-nginx's names; our http.njk
 * maps the first to `$request_id` and the second to "" (no canary backends).
 */
export const DEFAULT_LOG_FORMAT = '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent '
  + '"$http_referer" "$http_user_agent" $request_length $request_time [$proxy_upstream_name] '
  + '[$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length $upstream_response_time '
  + '$upstream_status $req_id';

/**
 * Long enough for a generous JSON object; bounds what one ConfigMap key puts into nginx.conf.
 * NGINX reads a token in a 4096-byte buffer that must also hold its closing quote and the byte
 * after it: a format of 4095 characters fails nginx -t ("too long parameter"), every reload with it.
 */
export const MAX_LOG_FORMAT_LENGTH = 4094;

/** Variables known by name: NGINX core, upstream, SSL and realip modules of the runtime, and ours. */
export const LOG_FORMAT_VARIABLES: ReadonlySet<string> = new Set([
  // ngx_http_core / ngx_http_variables
  'args', 'binary_remote_addr', 'body_bytes_sent', 'bytes_sent', 'connection', 'connection_requests',
  'connection_time', 'content_length', 'content_type', 'document_root', 'document_uri', 'host', 'hostname',
  'https', 'is_args', 'msec', 'nginx_version', 'pid', 'pipe', 'query_string', 'remote_addr', 'remote_port',
  'remote_user', 'request', 'request_completion', 'request_id', 'request_length', 'request_method',
  'request_time', 'request_uri', 'scheme', 'server_addr', 'server_name', 'server_port', 'server_protocol',
  'status', 'time_iso8601', 'time_local', 'uri', 'tcpinfo_rtt', 'tcpinfo_rttvar',
  // ngx_http_upstream
  'upstream_addr', 'upstream_bytes_received', 'upstream_bytes_sent', 'upstream_connect_time',
  'upstream_header_time', 'upstream_response_length', 'upstream_response_time', 'upstream_status',
  'http2', 'http3', 'limit_rate', 'realpath_root', 'request_body', 'request_filename',
  'proxy_protocol_addr', 'proxy_protocol_port', 'proxy_protocol_server_addr', 'proxy_protocol_server_port',
  'tcpinfo_snd_cwnd', 'tcpinfo_rcv_space', 'server_protocol',
  // ngx_http_upstream, ngx_http_proxy, gzip, limit_req/limit_conn, userid, stub_status
  'upstream_cache_status', 'proxy_host', 'proxy_port', 'proxy_add_x_forwarded_for',
  'gzip_ratio', 'limit_req_status', 'limit_conn_status', 'uid_got', 'uid_set', 'uid_reset',
  'connections_active', 'connections_reading', 'connections_writing', 'connections_waiting',
  // ngx_http_ssl_module (empty on plain HTTP)
  'ssl_protocol', 'ssl_cipher', 'ssl_server_name', 'ssl_session_reused', 'ssl_session_id', 'ssl_ciphers',
  'ssl_curve', 'ssl_curves', 'ssl_early_data', 'ssl_alpn_protocol', 'ssl_client_verify', 'ssl_client_s_dn',
  'ssl_client_i_dn', 'ssl_client_s_dn_legacy', 'ssl_client_i_dn_legacy', 'ssl_client_serial',
  'ssl_client_fingerprint', 'ssl_client_v_start', 'ssl_client_v_end', 'ssl_client_v_remain',
  'ssl_client_cert', 'ssl_client_raw_cert', 'ssl_client_escaped_cert',
  // ngx_http_realip_module
  'realip_remote_addr', 'realip_remote_port',
  // PROXY protocol (empty without use-proxy-protocol), and ingress-nginx's names defined by
  // features/client-address-http.njk
  'proxy_protocol_addr', 'proxy_protocol_port', 'proxy_protocol_server_addr', 'proxy_protocol_server_port',
  'pass_access_scheme', 'pass_server_port', 'pass_port', 'best_http_host',
  // resty-ingress's nginx.conf: set per location, and ingress-nginx's names mapped in http.njk
  'proxy_upstream_name', 'proxy_alternative_upstream_name', 'req_id',
  // ingress-nginx's per-location names, mapped from the location's route in features/access-log-http.njk
  'namespace', 'ingress_name', 'service_name', 'service_port',
]);

/** Families NGINX resolves by prefix (`$http_x_request_id`, `$cookie_session`, …). */
export const LOG_FORMAT_VARIABLE_PREFIXES: readonly string[] = [
  'arg_', 'cookie_', 'http_', 'sent_http_', 'sent_trailer_', 'upstream_http_', 'upstream_cookie_', 'upstream_trailer_',
];

/** True for a variable name a log format may use (without the `$`). */
export function isLogFormatVariable(name: string): boolean {
  if (LOG_FORMAT_VARIABLES.has(name)) return true;
  return /^[a-z0-9_]+$/u.test(name)
    && LOG_FORMAT_VARIABLE_PREFIXES.some((prefix) => name.startsWith(prefix) && name.length > prefix.length);
}

/** Printable ASCII except the quote render uses, the escape character and the directive terminator. */
const ALLOWED_TEXT = /^[\x20-\x26\x28-\x3a\x3c-\x5b\x5d-\x7e]*$/u;

/** `$name` or `${name}`; a `$` followed by neither is reported as such. */
const VARIABLE = /\$(?:\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))?/gu;

/** Validates a log-format-upstream value; the accepted value is the format as written. */
export function parseLogFormat(value: string): Checked<string> {
  if (value.trim() === '') return refuse('expected a non-empty log format');
  if (value.length > MAX_LOG_FORMAT_LENGTH) return refuse(`longer than ${MAX_LOG_FORMAT_LENGTH} characters`);
  if (!ALLOWED_TEXT.test(value)) {
    return refuse('only printable ASCII is allowed, without \' \\ ; or line breaks');
  }
  for (const match of value.matchAll(VARIABLE)) {
    const name = match[1] ?? match[2];
    if (name === undefined) return refuse(`"$" at offset ${match.index} does not start a variable name`);
    if (!isLogFormatVariable(name)) {
      return refuse(`variable $${name} is not provided by NGINX or resty-ingress (README "Logs" lists the allowed ones)`);
    }
  }
  return accept(value);
}
