// Test-only fast-check arbitraries for every user-controlled field the model
// reads: each annotation and ConfigMap key a feature declares (looked up by
// name: a key without an entry here fails the property tests, so a new key
// cannot go untested), unknown and mistyped names under the prefix, hosts,
// paths of every pathType, Kubernetes names, Service ports. Each mixes values
// from the field's own grammar (MARKER planted where the grammar allows
// letters) with hostile ones (hostile-values.ts).

import fc from 'fast-check';
import { INGRESS_NGINX_ANNOTATIONS, INGRESS_NGINX_CONFIG_KEYS } from '../features/ingress-nginx-names.ts';
import { FEATURES } from '../features/registry.ts';
import { LOG_FORMAT_VARIABLES } from '../log-format.ts';
import { anyString, hostileString, MARKER, regex, stretched, userValue } from './hostile-values.ts';
import { checkSnippet } from '../features/snippet-rules.ts';

const BOOLEANS = ['1', 't', 'T', 'true', 'TRUE', 'True', '0', 'f', 'F', 'false', 'FALSE', 'False', 'yes', 'on', ' true', ''];
const boolean = userValue(fc.constantFrom(...BOOLEANS));
const integerText = fc.oneof(fc.integer({ min: -5, max: 2_000_000 }), fc.integer(), fc.constantFrom(0, 1, 604_800, 604_801, 1_000_000, 1_000_001))
  .map(String);
const bigIntegerText = fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String);
const seconds = userValue(fc.oneof(integerText, integerText.map((n) => `${n}s`), bigIntegerText, fc.constantFrom('1m', '0x10', '1.5', '+7', ' 5')));
/** NGINX sizes: a unit multiplies digits that may overflow an off_t (9223372036854775807 bytes); digit counts near that bound are drawn more often. */
const size = userValue(fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.oneof(fc.integer({ min: 1, max: 13 }), fc.integer({ min: 9, max: 13 })), fc.stringMatching(/^[1-9]\d{12}$/), fc.constantFrom('', 'b', 'k', 'm', 'g', 'K', 'M', 'G'))
    .map(([digits, number, unit]) => `${number.slice(0, digits)}${unit}`) },
  { weight: 1, arbitrary: fc.tuple(fc.bigInt({ min: 0n, max: 2n ** 64n }), fc.constantFrom('', 'k', 'm', 'g', 'K', 'M', 'G')).map(([n, unit]) => `${n}${unit}`) },
  { weight: 1, arbitrary: fc.constantFrom(' 8m ', '1 m', '1t', '-1', '1.5m', '0') },
));
/** An RFC 9110 token, with the marker sometimes. */
const token = fc.oneof(fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/), fc.constant(`X-${MARKER}`), fc.constantFrom('always', 'never'));
const printable = fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.constant(`v-${MARKER} "quoted" \\ é`));
/** A rewrite target: URL characters and captures. */
const target = fc.oneof(
  fc.stringMatching(/^\/[A-Za-z0-9\-._~/%?&=+,:@!*]{0,24}$/),
  fc.tuple(fc.constantFrom('/', '', '/api/', `/${MARKER}/`), fc.array(fc.constantFrom('$1', '$2', '$9', '$0', '$10', 'x', '/'), { maxLength: 4 }))
    .map(([head, parts]) => head + parts.join('')),
);
/** rewrite-target: paths, absolute URLs (NGINX redirects), variables known and unknown, `$` alone, ways out of the directive. */
const rewriteTarget = fc.oneof(
  target,
  fc.tuple(
    fc.constantFrom('https://other.example/', 'http://other.example:8080/', '$scheme://$host/', `https://${MARKER}.example/`, 'https://', 'foo:', ''),
    fc.array(fc.constantFrom('$1', '$2', '$host', '$HOST', '$http_x_tenant', `$arg_${MARKER}`, '$http_', '$zqx_unknown', '$host1', '$', '$$', '${1}', 'x', '/', ':',
      ' ', ';', '"', '\'', '{', '}', '#', '\\', '\n', ' permanent', '; return 200 x'), { maxLength: 5 }),
  ).map(([head, parts]) => head + parts.join('')),
);
const CIPHER_WORDS = ['ECDHE-RSA-AES128-GCM-SHA256', 'HIGH', '!aNULL', '!MD5', 'DEFAULT', 'ALL', '@STRENGTH', 'TLS_AES_128_GCM_SHA256', 'NOPE', MARKER, 'AES256+EECDH', 'eNULL'];
const ciphers = userValue(fc.array(fc.constantFrom(...CIPHER_WORDS), { minLength: 1, maxLength: 5 }).map((words) => words.join(':')));
const protocols = userValue(fc.array(fc.constantFrom('TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3', 'SSLv3', 'tlsv1.2', MARKER), { minLength: 1, maxLength: 4 })
  .map((words) => words.join(' ')));
/** Log formats: known variables, ${name}, JSON-shaped text, unknown names, `$` alone. */
const LOG_PIECES = [...[...LOG_FORMAT_VARIABLES].map((name) => `$${name}`), '${status}', '$http_x_zqx', '$cookie_a', '$unknown_zqx', '$', '$ ',
  '"', '{', '}', ':', ',', ' ', '[', ']', '-', MARKER, '$status$', '$1'];
const logFormat = fc.oneof(
  userValue(fc.array(fc.constantFrom(...LOG_PIECES), { minLength: 1, maxLength: 16 }).map((pieces) => pieces.join(''))),
  // NGINX reads a token of at most 4096 bytes with its closing quote and the byte after it.
  stretched(fc.constantFrom('$status ', `${MARKER} `, '{"s":"$status"}'), `${MARKER} `, [4000, 4093, 4094, 4095, 4096, 4097]),
);

/** Address lists: IPv4/IPv6 addresses and ranges (host bits set, mapped, zoned, bad prefixes), joined by commas and spaces. */
const ADDRESS_PIECES = ['10.0.0.0/8', '10.1.2.3/8', '127.0.0.1', '::1', '2001:DB8::/32', '::ffff:10.0.0.0/104', '::ffff:10.0.0.0/64', 'fe80::1%eth0',
  '010.0.0.1', '10.0.0.0/33', '10.0.0.0/08', 'all', '', ' ', MARKER, '1.2.3.4/0'];
const addressList = userValue(fc.oneof(
  fc.array(fc.oneof(fc.constantFrom(...ADDRESS_PIECES), fc.ipV4(), fc.ipV6(), fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 40 })).map(([a, p]) => `${a}/${p}`)), { minLength: 1, maxLength: 5 })
    .chain((items) => fc.constantFrom(',', ', ', ' ,').map((separator) => items.join(separator))),
  fc.constant(''),
));
/** forwarded-for-header / forwarded-host-header: header names, tokens that are not names here, and hostile text. */
const headerName = userValue(fc.oneof(token, fc.constantFrom('X-Forwarded-For', 'CF-Connecting-IP', 'proxy_protocol', 'X-A; deny all', 'X-$host', `X${'a'.repeat(64)}`, 'X-A}', '')));
/** proxy-set-headers / add-headers: the ConfigMaps of headers the cluster arbitrary holds (HEADER_CONFIG_MAPS), missing ones and names that are no reference. */
const headersConfigMapRef = userValue(fc.constantFrom('ingress/custom-headers', 'ingress/response-headers', 'ingress/missing', 'custom-headers', 'a/b/c', 'Ingress/X', ' ingress/custom-headers', ''));
/** The ConfigMaps of headers a generated cluster holds besides the controller's (cluster-arbitrary.ts). */
export const HEADER_CONFIG_MAPS: readonly string[] = ['custom-headers', 'response-headers'];
/** Header names: tokens, the controller's own, framing ones and hostile text (a ConfigMap key the API would refuse included). */
const headerEntryName = fc.oneof(token, fc.constantFrom('X-Request-Start', 'Host', 'x-forwarded-proto', 'Content-Length', 'Content-Security-Policy', 'X A', 'X-$host', 'X"Q', 'X:Y'));
/** Header values: text, NGINX variables known and unknown, CSP-like values with `;`, empty, and hostile text. */
const headerEntryValue = userValue(fc.oneof(
  fc.stringMatching(/^[ -!#-[\]-~]{0,30}$/),
  fc.constantFrom('t=${msec}', '$remote_addr', `${MARKER} $http_user_agent`, "default-src 'self'; img-src *", '', '$nope', '${msec', 'price 5$', '{a}'),
));
/** The data of one ConfigMap of headers. */
export const headerConfigMapData: fc.Arbitrary<Record<string, string>> = fc.array(fc.tuple(headerEntryName, headerEntryValue), { maxLength: 4 })
  .map((entries) => Object.fromEntries(entries));
/** block-user-agents / block-referers items: strings, ~regexes, ~*regexes, quoted ones, joined by commas. */
const blockItem = fc.oneof(
  fc.constantFrom('curl/7.68.0', `${MARKER}bot`, `"Mozilla/5.0 (${MARKER}; x)"`, '\'~*bad bot\'', 'default', 'Bad Bot', 'a;b', '"a\\"b"'),
  regex.map((body) => `~${body}`),
  regex.map((body) => `~*${body}`),
);
const blockList = userValue(fc.array(blockItem, { minLength: 1, maxLength: 4 }).map((items) => items.join(',')));
/**
 * Snippets (features/snippets.ts): directives NGINX takes in every context a snippet is printed in,
 * and the hostile ones the snippet rules refuse (snippet-rules.test.ts has the rows). No MARKER: a
 * snippet is the one user text printed as directives rather than as a quoted value, which the render
 * property "every user value is quoted" cannot hold for by design.
 */
const SNIPPET_HOSTILE = ['include /etc/nginx/x.conf;', 'load_module /tmp/x.so;', 'content_by_lua_block { os.execute("id") }',
  'add_header X 1; # c\ninclude /tmp/x;', 'alias /var/run/secrets/kubernetes.io/serviceaccount/token;', 'root $e/etc;', 'return 200; }',
  'add_header X "a\n";', 'lua_package_path "/tmp/?.lua";', 'add_header X "a', '"load_module" x;', 'add_header X a\u0000;', '', ' '];
/** Random and hostile strings only where the rules refuse them: one they accept is NGINX text nobody can promise nginx -t takes. */
const refusedText = fc.oneof(hostileString, anyString).filter((text) => !checkSnippet(text).ok);
const snippetOf = (...safe: string[]): fc.Arbitrary<string> => fc.oneof(
  { arbitrary: fc.constantFrom(...safe), weight: 6 }, { arbitrary: fc.constantFrom(...SNIPPET_HOSTILE), weight: 3 }, { arbitrary: refusedText, weight: 1 },
);
const blockSnippet = snippetOf('add_header X-Snippet on;', 'add_header X-Snippet "a b" always; # why', 'if ($http_x_probe) { return 418; }');
const ORIGIN_PIECES = ['https://app.example.com', `https://${MARKER}.example.com:8443`, `http://*.${MARKER}.example`, 'null', '*', 'tauri://localhost:3000',
  'foo.bar.com', 'HTTPS://A.COM', 'https://a.com/path', 'https://.*', '$http_origin', ' ', ''];
const origins = userValue(fc.array(fc.constantFrom(...ORIGIN_PIECES), { minLength: 1, maxLength: 4 }).map((items) => items.join(', ')));
const headerList = (pieces: readonly string[]): fc.Arbitrary<string> => userValue(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 4 })
  .chain((items) => fc.constantFrom(',', ', ', ' ', ',\t', ',  ').map((separator) => items.join(separator))));
/**
 * mirror-target: hosts that resolve without a network (NGINX resolves a target when it loads the
 * conf; one that does not resolve fails nginx -t by design, blamed on its Ingress alone:
 * render/mirror-render.test.ts), the marker in the path; schemes, hosts and variables it refuses.
 */
const mirrorTarget = userValue(fc.oneof(
  { weight: 3, arbitrary: fc.tuple(
    fc.constantFrom('http', 'https'),
    fc.constantFrom('127.0.0.1', 'localhost', '127.0.9.9:8081', 'localhost:65535'),
    fc.constantFrom('', '/', `/${MARKER}`, `/${MARKER}/a.b~c:d-e_f`),
    fc.constantFrom('', '$request_uri'),
  ).map(([scheme, host, path, variable]) => `${scheme}://${host}${path}${variable}`) },
  { weight: 1, arbitrary: fc.tuple(
    fc.constantFrom('http', 'HTTP', 'ftp', 'http:/'),
    fc.constantFrom('localhost', '999.1.1.1', '[::1]', 'localhost:0', '', `$host`),
    fc.constantFrom('', `/${MARKER}`, '/a b', '/%20', '/?a=b', '/}', '/;'),
    fc.constantFrom('', '$host', '${request_uri}', '$request_uri$request_uri', '$request_uri_x', '$1'),
  ).map(([scheme, host, path, variable]) => `${scheme}://${host}${path}${variable}`) },
));
/** mirror-host: a Host header, name or address with an optional port, the marker in a label. */
const mirrorHost = userValue(fc.oneof(
  fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?(\.[a-z0-9]{1,5}){0,2}(:[0-9]{1,5})?$/),
  fc.constantFrom(`${MARKER}.example`, `${MARKER}.example:8443`, '10.0.0.1', '$http_host', 'a_b', '{a}', 'a/b'),
));
/** Host names for upstream-vhost, with the marker sometimes. */
const upstreamHost = fc.oneof(fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,20}[a-z0-9])?$/), fc.constant(`${MARKER}.svc.cluster.local`));
/** limit-allowlist: addresses and ranges, IPv4 and IPv6, with the malformed ones ParseCIDRs refuses. */
const limitAddresses = userValue(fc.oneof(
  fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 40 })).map(([a, p]) => `${a}/${p}`),
    fc.constantFrom('127.0.0.2', '2001:DB8::1/32', '::ffff:127.0.0.0/104', 'fe80::1%eth0', '10.0.0.0/08', `${MARKER}.test`, '10.0.0.1;', '')), { minLength: 1, maxLength: 4 })
    .chain((items) => fc.constantFrom(',', ', ', ' ,').map((separator) => items.join(separator))),
  fc.constantFrom('10.0.0.0/8 1; } server {', '"10.0.0.1"', '10.0.0.1\n'),
));
/** Limits: strconv.Atoi's integers around the bounds (0, negative, 65535, 1e6, int64) and what it refuses. */
const limitCount = userValue(fc.oneof(integerText, bigIntegerText, fc.constantFrom('0', '-1', '65535', '65536', '1000000', '60000000', '+5', '5r/s', '1k', ' 5')));
/** permanent-/temporal-redirect: URLs and paths of ingress-nginx's character class, and values outside it. */
const redirectUrl = userValue(fc.oneof(
  fc.stringMatching(/^https?:\/\/[a-z0-9.-]{1,12}(:\d{1,5})?(\/[-._~A-Za-z0-9:,&=]{0,8}){0,3}(\?[-._~A-Za-z0-9/:,?&=]{0,10})?$/),
  fc.stringMatching(/^\/[-._~A-Za-z0-9/:,&=]{0,16}$/), fc.constant(`https://${MARKER}.test/${MARKER}?q=${MARKER}`),
  fc.constantFrom('ftp://a.test/', '//evil.test/', 'https://a.test/$host', 'https://a.test/;return 200', 'https://a.test/"}', 'https://a..test/',
    'https://a.test:99999/', 'https://a.test/ x', 'https://a.test/\nx', 'https://a.test/%0a', 'javascript:alert(1)', 'x'),
));
const redirectCode = userValue(fc.oneof(integerText, fc.constantFrom('301', '302', '307', '308', '300', '309', '299', '-301', '+308', '0x12d', ' 301', '3O1')));
const statusCode = userValue(fc.constantFrom('503', '429', '400', '599', '399', '600', '200', '+429', '0429', 'busy', ' 429'));

/**
 * auth-url and global-auth-url: hosts that resolve without a network (NGINX resolves them when it
 * loads the conf), the marker in the path and query; variables, schemes and characters refused.
 */
const authUrl = userValue(fc.oneof(
  { weight: 3, arbitrary: fc.tuple(
    fc.constantFrom('http', 'https'),
    fc.constantFrom('127.0.0.1', 'localhost', '127.0.9.9:8081', '[::1]:9000'),
    fc.constantFrom('', '/', `/${MARKER}`, `/${MARKER}/a.b~c:d-e_f`),
    fc.constantFrom('', '?a=b', `?${MARKER}=1&x=y,z`),
  ).map(([scheme, host, path, query]) => `${scheme}://${host}${path}${query}`) },
  { weight: 1, arbitrary: fc.tuple(
    fc.constantFrom('http', 'HTTP', 'ftp', ''),
    fc.constantFrom('localhost', '999.1.1.1', '$host', 'localhost:0', '', 'a..b'),
    fc.constantFrom('', `/${MARKER}`, '/a b', '/%20', '/}', '/;', '/"', '/$request_uri'),
    fc.constantFrom('', '?rd=$escaped_request_uri', '?a=b;c', '?a b'),
  ).map(([scheme, host, path, query]) => `${scheme}://${host}${path}${query}`) },
));
/** auth-signin: allow-listed variables, others refused. */
const signinUrl = userValue(fc.oneof(
  fc.tuple(fc.constantFrom('https://$host', 'http://login.example', 'https://$http_host:8443', 'http://127.0.0.1'),
    fc.constantFrom('', `/${MARKER}/start`, '/oauth2/start'),
    fc.constantFrom('', '?rd=$escaped_request_uri', `?${MARKER}=$request_uri`, '?rd=', '?a=$scheme'))
    .map(([head, path, query]) => `${head}${path}${query}`),
  fc.constantFrom('https://$hostx/start', 'https://login/?s=$cookie_s', 'https://login/"', 'https://login/${host}', 'login/start', `https://login/${MARKER}$`),
));
const authHeaderNames = userValue(fc.oneof(
  fc.array(fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/), fc.constant(`X-${MARKER}`)), { minLength: 1, maxLength: 4 }).map((names) => names.join(', ')),
  fc.constantFrom('X User', 'Host', 'X-A:1', 'X-A;', ',,', 'x-forwarded-for'),
));
/** Proxy tuning (features/proxy-buffers.ts, proxy-rewrites.ts, client-connections.ts): buffer sizes near NGINX's merge rules, rewrite words. */
const PROXY_TUNING_VALUES: Readonly<Record<string, fc.Arbitrary<string>>> = (() => {
  const onOff = userValue(fc.constantFrom('on', 'off', ' on ', 'ON', 'true', 'on; allow all', ''));
  const bufferSize = userValue(fc.oneof(fc.constantFrom('4k', '8k', '16k', '32k', '64k', '1m', '16m', '17m', '1g', '8b', '0', '8 k', '8kb', ' 8k '),
    fc.tuple(fc.integer({ min: 0, max: 70_000 }), fc.constantFrom('', 'k', 'K', 'm', 'M', 'g')).map(([n, unit]) => `${n}${unit}`)));
  const count = userValue(fc.oneof(fc.integer({ min: -2, max: 300 }).map(String), fc.constantFrom('2', '3', '4', '8', '256', '257', 'four', '4.5')));
  const word = fc.oneof(fc.constantFrom('/', '/app/', `/${MARKER}/`, 'http://backend.internal/', '~/app/', '~?x', 'a.example', `${MARKER}.example`, 'off', '$host'),
    fc.stringMatching(/^[-._~a-zA-Z0-9/:,?&=]{1,16}$/));
  const pair = userValue(fc.oneof(fc.tuple(word, fc.constantFrom(' ', '  ', '\t', '\n'), word).map(([a, gap, b]) => `${a}${gap}${b}`), word,
    fc.tuple(word, word, word).map((words) => words.join(' '))));
  const times = userValue(fc.oneof(fc.constantFrom('1h', '30m', '90', '7d', '8d', '0s', '1h30m', '500ms', '1y'),
    fc.tuple(fc.integer({ min: 0, max: 20_000 }), fc.constantFrom('', 'ms', 's', 'm', 'h', 'd')).map(([n, unit]) => `${n}${unit}`)));
  return {
    'proxy-buffering': onOff, 'proxy-request-buffering': onOff,
    'proxy-http-version': userValue(fc.constantFrom('1.0', '1.1', ' 1.1 ', '2', '1.1; return 200', '')),
    'proxy-buffer-size': bufferSize, 'proxy-busy-buffers-size': bufferSize, 'client-body-buffer-size': bufferSize, 'client-header-buffer-size': bufferSize,
    'proxy-max-temp-file-size': size, 'proxy-buffers-number': count,
    'proxy-cookie-domain': pair, 'proxy-cookie-path': pair, 'proxy-redirect-from': userValue(word), 'proxy-redirect-to': userValue(word),
    'large-client-header-buffers': userValue(fc.tuple(count, bufferSize).map(([n, sizeText]) => `${n} ${sizeText}`)),
    'client-header-timeout': seconds, 'client-body-timeout': seconds, 'keep-alive': seconds, 'upstream-keepalive-timeout': seconds,
    'connection-proxy-header': userValue(fc.constantFrom('close', 'keep-alive', ' close ', 'clo se', 'upgrade', 'close; return 200', '')),
    'keep-alive-requests': count, 'upstream-keepalive-connections': count, 'upstream-keepalive-requests': count, 'upstream-keepalive-time': times,
  };
})();

/** What each annotation and ConfigMap key of a feature may be given, by name. */
export const KEY_VALUES: Readonly<Record<string, fc.Arbitrary<string>>> = {
  'proxy-body-size': size,
  'proxy-connect-timeout': seconds,
  'proxy-read-timeout': seconds,
  'proxy-send-timeout': seconds,
  'rewrite-target': userValue(rewriteTarget),
  'use-regex': boolean,
  'ssl-redirect': boolean,
  'force-ssl-redirect': boolean,
  'backend-protocol': userValue(fc.constantFrom('HTTP', 'HTTPS', 'https', ' HTTPS ', 'GRPC', 'grpcs', 'AUTO_HTTP', 'FCGI', 'AJP', 'h2c')),
  'load-balance': userValue(fc.constantFrom('round_robin', 'ewma', ' ewma ', 'chash', 'sticky_balanced', 'least_conn', 'EWMA')),
  'upstream-hash-by': userValue(fc.array(fc.constantFrom('$request_uri', '${host}', '$remote_addr', `$http_x_${MARKER}`, `$arg_${MARKER}`, `$cookie_${MARKER}`,
    '$1', `-${MARKER}_`, '$', '{', '}', '${uri', '$unknown_zqx', ' ', '.'), { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join(''))),
  'upstream-hash-by-subset': boolean,
  'upstream-hash-by-subset-size': userValue(fc.oneof(integerText, fc.constantFrom('0', '1', '3', '1000', '1001'))),
  'canary': boolean,
  'canary-weight': userValue(fc.oneof(integerText, bigIntegerText)),
  'canary-weight-total': userValue(fc.oneof(integerText, bigIntegerText)),
  'canary-by-header': userValue(token),
  'canary-by-header-value': userValue(printable),
  'canary-by-header-pattern': userValue(regex),
  'canary-by-cookie': userValue(token),
  'affinity': userValue(fc.constantFrom('cookie', ' cookie ', 'Cookie', 'ip', '')),
  'affinity-mode': userValue(fc.constantFrom('balanced', 'persistent', ' persistent', 'Persistent', 'sticky')),
  'affinity-canary-behavior': userValue(fc.constantFrom('sticky', 'legacy', ' legacy ', 'Legacy', 'always')),
  'session-cookie-name': userValue(fc.oneof(token, fc.constantFrom('a/b', 'a:b', 'my cookie', 'a;b', 'a=b', ' route '))),
  'session-cookie-path': userValue(fc.oneof(target, fc.constantFrom('/a b', '/; Domain=x', '/re/.*', '/foo/bar'))),
  'session-cookie-domain': userValue(fc.constantFrom('foo.bar', `${MARKER}.test`, 'a b', 'a,b', '.example.com', 'a:8080')),
  'session-cookie-expires': seconds,
  'session-cookie-max-age': seconds,
  'session-cookie-secure': boolean,
  'session-cookie-samesite': userValue(fc.constantFrom('None', 'Lax', 'Strict', 'lax', ' STRICT ', 'Relaxed')),
  'session-cookie-conditional-samesite-none': boolean,
  'session-cookie-change-on-failure': boolean,
  'ssl-protocols': protocols,
  'ssl-ciphers': ciphers,
  'hsts': boolean,
  'hsts-max-age': userValue(fc.oneof(integerText, fc.constantFrom('63072000', '63072001', '000000001'))),
  'hsts-include-subdomains': boolean,
  'hsts-preload': boolean,
  'http-redirect-code': userValue(fc.constantFrom('301', '302', '307', '308', '+308', '0308', '200', '999', '308.0', '0x134')),
  'disable-access-log': boolean,
  'log-format-upstream': logFormat,
  'log-format-escape-json': boolean,
  'log-format-escape-none': boolean,
  'skip-access-log-urls': userValue(fc.array(fc.constantFrom('/healthz', '/metrics?x=1', ` /${MARKER} `, '~^/re', 'default', '/a b', '/a"b', '/$uri', '/a;b', 'x', ''), { maxLength: 4 })
    .map((items) => items.join(','))),
  'access-log-path': userValue(fc.constantFrom('/var/log/nginx/access.log', '/dev/stdout', `/tmp/${MARKER}.log`, 'access.log', 'syslog:server=x', '/var/log/nginx/access.log;')),
  'error-log-level': userValue(fc.constantFrom('debug', 'info', 'notice', 'warn', 'error', 'crit', 'alert', 'emerg', 'WARN', 'loud', 'warn;')),
  'use-gzip': boolean,
  'gzip-level': userValue(fc.oneof(integerText, fc.constantFrom('1', '9', '0', '10', ' 5'))),
  'gzip-min-length': userValue(fc.oneof(integerText, bigIntegerText, fc.constantFrom('1k', '2147483647', '2147483648'))),
  'gzip-types': userValue(fc.oneof(
    fc.array(fc.constantFrom('text/css', 'application/json', 'text/html', '*', `x/${MARKER}`, 'text', 'text/$x', 'a/b;', '"a/b"'), { minLength: 1, maxLength: 5 }).map((w) => w.join(' ')),
    fc.constant(''),
  )),
  'gzip-disable': userValue(fc.constantFrom('msie6', '', 'MSIE [4-6]\\.', `${MARKER}`, 'msie6;')),
  'use-http2': boolean,
  'http2-max-concurrent-streams': userValue(fc.oneof(integerText, bigIntegerText)),
  'proxy-stream-timeout': userValue(fc.oneof(seconds, fc.constantFrom('600s', '10m', '1h', '7d', '8d', '500ms', '0', '1h30m', '10m0s', '600s;', `${MARKER}s`, '$x'))),
  'proxy-stream-responses': userValue(fc.oneof(integerText, bigIntegerText, fc.constantFrom('0', '2147483647', '2147483648', '1;', 'many'))),
  'worker-processes': userValue(fc.oneof(integerText, fc.constantFrom('auto', 'AUTO', '0', '1024', '1025', 'auto;'))),
  'max-worker-connections': userValue(fc.oneof(integerText, bigIntegerText, fc.constantFrom('0', '16', '15', '1048576', '1048577'))),
  'worker-shutdown-timeout': userValue(fc.oneof(seconds, fc.constantFrom('240s', '5m', '1h', '169h', '1m30s', '10ms'))),
  'variables-hash-bucket-size': userValue(fc.oneof(integerText, fc.constantFrom('32768', '32769'))),
  'variables-hash-max-size': userValue(fc.oneof(integerText, bigIntegerText)),
  'server-name-hash-bucket-size': userValue(fc.oneof(integerText, fc.constantFrom('0', '32768', '32769'))),
  'server-name-hash-max-size': userValue(fc.oneof(integerText, bigIntegerText)),
  'map-hash-bucket-size': userValue(fc.oneof(integerText, fc.constantFrom('32768', '32769'))),
  'ssl-session-cache': boolean,
  'ssl-session-cache-size': size,
  'ssl-session-timeout': userValue(fc.oneof(seconds, fc.constantFrom('10m', '1h', '7d', '8d', '1d12h', '0'))),
  'ssl-session-tickets': boolean,
  'ssl-buffer-size': size,
  'ssl-ecdh-curve': userValue(fc.oneof(
    fc.array(fc.constantFrom('X25519', 'prime256v1', 'secp384r1', 'auto', 'nocurve', MARKER, 'X448'), { minLength: 1, maxLength: 3 }).map((w) => w.join(':')),
    fc.constantFrom('auto', 'auto;', 'X25519 prime256v1'),
  )),
  'ssl-early-data': boolean,
  'ssl-reject-handshake': boolean,
  // A Secret reference: found or not (the generated clusters hold none with dhparam.pem), or no valid name.
  'ssl-dh-param': userValue(fc.constantFrom('ingress/dhparam', 'default/dh-params', 'dhparam', 'a/b/c', `${MARKER}/x`, 'Ingress/DH', '/dh', 'ingress/')),
  // Base64 of 48 or 80 bytes (NGINX's two sizes), of other sizes, unpadded, with spaces or a marker.
  'ssl-session-ticket-key': userValue(fc.oneof(
    fc.tuple(fc.constantFrom(48, 80, 47, 49, 79, 81, 0, 32), fc.uint8Array({ minLength: 81, maxLength: 81 }))
      .map(([length, bytes]) => Buffer.from(bytes.subarray(0, length)).toString('base64')),
    fc.constantFrom(`${MARKER}${'A'.repeat(61)}=`, `${'A'.repeat(64)}`, ` ${'B'.repeat(64)} `, `${'C'.repeat(106)}==`, `${'D'.repeat(60)} ${'E'.repeat(3)}`),
  )),
  'allow-snippet-annotations': boolean,
  'annotations-risk-level': userValue(fc.constantFrom('Critical', 'High', 'Medium', 'Low', ' High', 'high')),
  'strict-validate-path-type': boolean,
  'annotation-value-word-blocklist': userValue(fc.constantFrom('', 'load_module,_by_lua', '{', MARKER, ' , ', 'a,,b', 'serviceaccount', '/')),
  'configuration-snippet': blockSnippet,
  'server-snippet': blockSnippet,
  'auth-snippet': snippetOf('proxy_set_header X-Auth-Snippet on;', 'proxy_set_header X-Auth-Snippet "a b"; # why'),
  'location-snippet': blockSnippet,
  'http-snippet': snippetOf('add_header X-Snippet on;', 'map $http_x_probe $resty_snippet_probe { default 0; }'),
  'main-snippet': snippetOf('env RESTY_SNIPPET_PROBE;', 'worker_rlimit_nofile 4096;'),
  'fastcgi-index': userValue(fc.constantFrom('index.php', ' index.php ', 'app.fcgi', `${MARKER}.php`, 'a b', '../x', 'in"dex', '$uri')),
  'fastcgi-params-configmap': userValue(fc.constantFrom('params', 'default/params', `${MARKER}`, 'a/b/c', '/x', 'x/', 'Bad_Name')),
  'proxy-ssl-secret': userValue(fc.constantFrom('default/ca', `default/${MARKER}`, 'team-a/ca', 'ca', 'a/b/c', 'default/', 'DEFAULT/Ca')),
  'proxy-ssl-verify': userValue(fc.constantFrom('on', 'off', 'On', 'true', '')),
  'proxy-ssl-verify-depth': userValue(fc.oneof(integerText, bigIntegerText)),
  'proxy-ssl-name': userValue(fc.oneof(fc.constantFrom('$host', '$proxy_host', '$request_uri', 'a*b', `${MARKER}.example`, 'Backend.Example', '-a.b'), fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?(\.[a-z0-9]{1,5}){0,3}$/))),
  'proxy-ssl-server-name': userValue(fc.constantFrom('on', 'off', 'yes', 'ON')),
  'proxy-ssl-protocols': userValue(fc.constantFrom('TLSv1.2', 'TLSv1.3 TLSv1.2', ' TLSv1.3 ', 'TLSv1.1', 'SSLv3', '', 'TLSv1.2  TLSv1.2')),
  'proxy-ssl-ciphers': ciphers,
  'allow-cross-namespace-resources': boolean,
  'allowlist-source-range': addressList,
  'whitelist-source-range': addressList,
  'denylist-source-range': addressList,
  'block-cidrs': addressList,
  'block-user-agents': blockList,
  'block-referers': blockList,
  'enable-cors': boolean,
  'cors-allow-origin': origins,
  'cors-allow-methods': headerList(['GET', 'POST', 'put', MARKER, 'P0ST', '*']),
  'cors-allow-headers': headerList(['X-Custom', `X-${MARKER}`, 'Content-Type', 'x_y', '*', 'a.b']),
  'cors-expose-headers': headerList(['X-Custom', `X-${MARKER}`, '*', 'a.b']),
  'cors-allow-credentials': boolean,
  'cors-max-age': userValue(fc.oneof(integerText, bigIntegerText, fc.constantFrom('-1', '1d', '+5'))),
  'custom-http-errors': userValue(fc.oneof(
    fc.array(fc.constantFrom('404', '500', '503', '599', '400', '301', '600', '200', ' 502', ''), { minLength: 1, maxLength: 4 }).map((codes) => codes.join(',')),
    fc.constantFrom(',12', '404,,500', '4 04', 'notfound', '404;500'),
  )),
  'disable-proxy-intercept-errors': boolean,
  // Names of the generated Services' grammar (some exist), and names ingress-nginx refuses.
  'default-backend': userValue(fc.oneof(fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/), fc.constant(`${MARKER}-svc`),
    fc.constantFrom('Errors', 'ns/errors', '1errors', `e${'x'.repeat(63)}`))),
  'mirror-target': mirrorTarget,
  'mirror-request-body': userValue(fc.constantFrom('on', 'off', ' off ', 'o ff', 'OFF', 'false', '')),
  'mirror-host': mirrorHost,
  'upstream-vhost': userValue(fc.oneof(upstreamHost, upstreamHost.map((name) => `${name}:8080`), fc.constantFrom('10.0.0.1:80', '[::1]:8443', '$host',
    '*.example.com', 'a:99999', ' api.internal ', `${MARKER}.svc`, 'a b', 'a;b'))),
  'x-forwarded-prefix': userValue(fc.oneof(fc.stringMatching(/^\/[A-Za-z0-9._~/:-]{0,20}$/), fc.constantFrom('/$1', '/api/$2/x', '$host', '/a b',
    `/${MARKER}`, '/a"b', '/$', '/$a1'))),
  'proxy-next-upstream': userValue(fc.array(fc.constantFrom('error', 'timeout', 'http_502', 'http_503', 'non_idempotent', 'off', 'http_418', MARKER), { minLength: 1, maxLength: 4 })
    .chain((words) => fc.constantFrom(' ', '', '  ', '\t').map((separator) => words.join(separator)))),
  'proxy-next-upstream-timeout': seconds,
  'proxy-next-upstream-tries': userValue(fc.oneof(integerText, fc.constantFrom('0', '1', '100', '101', '+3', '3s'))),
  'service-upstream': boolean,
  'auth-tls-secret': userValue(fc.oneof(fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/), fc.constant(`${MARKER}-ca`),
    fc.stringMatching(/^[a-z]{1,6}\/[a-z]{1,6}$/), fc.constantFrom('CA', 'a/b/c', '/ca', 'ns/', 'ca secret', 'ca";'))),
  'auth-tls-verify-client': userValue(fc.constantFrom('on', 'off', 'optional', 'optional_no_ca', 'ON', ' on', 'yes', 'on;')),
  'auth-tls-verify-depth': userValue(fc.oneof(integerText, fc.constantFrom('0', '1', '100', '101', '-1', '1.5', '0x2'))),
  'auth-tls-error-page': userValue(fc.oneof(
    fc.stringMatching(/^https?:\/\/[a-z0-9.-]{1,12}(:\d{1,5})?(\/[A-Za-z0-9._-]{1,8}){0,3}$/), fc.constant(`https://${MARKER}.test/x`),
    fc.constantFrom('/cert-error', '@cert', 'https://e.test/?a=b', 'https://e.test/a b', 'https://e.test; return 200', 'javascript:alert(1)'))),
  'auth-tls-pass-certificate-to-upstream': boolean,
  'auth-tls-match-cn': userValue(fc.oneof(regex.map((body) => `CN=${body}`), fc.constant(`CN=${MARKER}`),
    fc.constantFrom('CN=(alice|bob)', 'CN=(a+)+$', 'alice', 'CN=(', 'CN=a") { return 200; } #', 'CN=a\nb', 'CN=bücher'))),
  'limit-rps': limitCount,
  'limit-rpm': limitCount,
  'limit-connections': limitCount,
  'limit-burst-multiplier': limitCount,
  'limit-rate': limitCount,
  'limit-rate-after': limitCount,
  'limit-allowlist': limitAddresses,
  'limit-whitelist': limitAddresses,
  'limit-req-status-code': statusCode,
  'limit-conn-status-code': statusCode,
  'satisfy': userValue(fc.constantFrom('any', 'all', ' any ', 'ANY', 'some', 'any; allow all', '')),
  'auth-url': authUrl,
  'global-auth-url': authUrl,
  'auth-method': userValue(fc.constantFrom('GET', 'POST', 'HEAD', 'get', 'PROPFIND', ' GET ')),
  'global-auth-method': userValue(fc.constantFrom('GET', 'POST', 'get', 'PROPFIND')),
  'auth-signin': signinUrl,
  'global-auth-signin': signinUrl,
  'auth-signin-redirect-param': userValue(fc.constantFrom('rd', 'next', MARKER, 'a/b', 'a b', 'a"b', 'a=b')),
  'global-auth-signin-redirect-param': userValue(fc.constantFrom('rd', 'next', MARKER, 'a/b', 'a"b')),
  'auth-response-headers': authHeaderNames,
  'global-auth-response-headers': authHeaderNames,
  'auth-request-redirect': userValue(fc.constantFrom('https://app.example/back', `/${MARKER}?a=b`, '$request_uri', 'a b', 'a"b')),
  'global-auth-request-redirect': userValue(fc.constantFrom('https://app.example/back', `/${MARKER}`, '$request_uri')),
  'auth-cache-key': userValue(fc.constantFrom('$remote_user$http_authorization', `${MARKER}-$http_x_token`, '${cookie_s}', '$request_body', '$hostx', '${host', 'a"b', '')),
  'global-auth-cache-key': userValue(fc.constantFrom('$http_authorization', `${MARKER}$remote_user`, '$request_body')),
  'auth-cache-duration': userValue(fc.constantFrom('200 202 401 5m', '200 1m, 401 30s', '5m', '200 1h 30m', '999 5m', '200 202', '200 5m;x', '')),
  'global-auth-cache-duration': userValue(fc.constantFrom('200 202 401 5m', '200 10m', '999 5m', '200')),
  'auth-always-set-cookie': boolean,
  'global-auth-always-set-cookie': boolean,
  'auth-keepalive': userValue(fc.oneof(fc.integer({ min: 0, max: 64 }).map(String), integerText, bigIntegerText, fc.constantFrom('0', '8', '-1', '10000', '10001', '1.5', '8;', ' 8', MARKER))),
  'auth-keepalive-requests': userValue(fc.oneof(integerText, fc.constantFrom('1', '1000', '0', '-5', '2147483648', '1e3', MARKER))),
  'auth-keepalive-timeout': userValue(fc.oneof(integerText, fc.constantFrom('1', '60', '0', '60s', '2147484', 'x"y', MARKER))),
  'auth-keepalive-share-vars': boolean,
  'auth-proxy-set-headers': userValue(fc.constantFrom('auth-headers', 'default/auth-headers', 'team-a/auth-headers', `${MARKER}`, 'missing', 'a/b/c', 'Bad_Name')),
  'enable-global-auth': boolean,
  'no-auth-locations': userValue(fc.constantFrom('/.well-known/acme-challenge', `/${MARKER}, /public`, '/a"b', 'public', '')),
  'auth-type': userValue(fc.constantFrom('basic', 'digest', 'Basic', 'basic ', 'basicx', 'ntlm', MARKER, '')),
  // Secret names (some exist), namespace/name, and names ingress-nginx denies: none may reach nginx.conf.
  'auth-secret': userValue(fc.oneof(fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/), fc.constant(`${MARKER}-users`),
    fc.constantFrom('default/users', 'other/users', 'a/b/c', 'Users', 'a b', '"users"', `users;${MARKER}`))),
  'auth-secret-type': userValue(fc.constantFrom('auth-file', 'auth-map', 'auth-files', 'Auth-File', 'opaque', ' auth-map', '')),
  'auth-realm': userValue(fc.oneof(fc.stringMatching(/^[A-Za-z0-9 ._~/:-]{0,30}$/), fc.constant(`Realm ${MARKER}`),
    fc.constantFrom('a"b', 'a\\b', '$host', 'a; deny all', 'x'.repeat(257)))),
  ...PROXY_TUNING_VALUES,
  'use-forwarded-headers': boolean,
  'forwarded-for-header': headerName,
  'forwarded-host-header': headerName,
  'compute-full-forwarded-for': boolean,
  'enable-real-ip': boolean,
  'proxy-real-ip-cidr': addressList,
  'use-proxy-protocol': boolean,
  'proxy-protocol-header-timeout': userValue(fc.oneof(
    fc.tuple(fc.integer({ min: 0, max: 100_000 }), fc.constantFrom('ns', 'us', 'µs', 'ms', 's', 'm', 'h', '', 'S', ' s')).map(([n, unit]) => `${n}${unit}`),
    fc.constantFrom('1m30s', '1.5s', '.5s', '0', '-5s', '25h', '5s;', 's', '1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h'),
  )),
  'proxy-add-original-uri-header': boolean,
  'generate-request-id': boolean,
  'proxy-set-headers': headersConfigMapRef,
  'add-headers': headersConfigMapRef,
  'hide-headers': headerList(['X-Powered-By', 'Server', `X-${MARKER}`, 'x_under', '', ' ', 'X A', 'X-$host', 'X;deny', 'X"q', 'X:Y']),
  'enable-underscores-in-headers': boolean,
  'ignore-invalid-headers': boolean,
  'server-tokens': boolean,
  'permanent-redirect': redirectUrl,
  'temporal-redirect': redirectUrl,
  'permanent-redirect-code': redirectCode,
  'temporal-redirect-code': redirectCode,
  'relative-redirects': boolean,
  'from-to-www-redirect': boolean,
  'use-port-in-redirects': boolean,
  'preserve-trailing-slash': boolean,
  'server-alias': userValue(fc.oneof(
    fc.array(fc.oneof(fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?(\.[a-z0-9]{1,8}){0,3}$/), fc.constant(`${MARKER}.test`), fc.constant(`*.${MARKER}.test`)), { minLength: 1, maxLength: 4 })
      .map((items) => items.join(', ')),
    fc.constantFrom('~^www\\d+\\.example$', 'example.*', 'a.test;return 200', 'a.test"', 'a test', 'a.test\nb', ',,', 'shop.test', 'Shop.Test'))),
  'ssl-passthrough': boolean,
  'app-root': userValue(fc.oneof(fc.stringMatching(/^\/[-._~a-zA-Z0-9/:]{0,20}$/), fc.constant(`/${MARKER}/`),
    fc.constantFrom('foo', 'http://a.test/x', '/a$host', '/a;return 200', '/a"b', '/a b', '/a\nb', '//x', '/a?b'))),
};

/**
 * ConfigMap keys whose refused value serves no Ingress (FeatureKey.failClosed): mostly valid there,
 * or a cluster with every key set (DENSE) would almost never serve anything to check.
 */
const VALID_CLOSING_VALUES: Readonly<Record<string, fc.Arbitrary<string>>> = (() => {
  const addresses = fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('10.0.0.0/8', '2001:db8::/32', '::ffff:10.0.0.0/104')), { maxLength: 4 })
    .map((items) => items.join(', '));
  const patterns = fc.array(fc.constantFrom(`${MARKER}bot`, `~*${MARKER}[0-9]+`, '~^curl/[0-9]+', `"${MARKER} (x; y)"`, '~*\\.spam\\.example$'), { maxLength: 3 })
    .map((items) => items.join(','));
  return { 'whitelist-source-range': addresses, 'denylist-source-range': addresses, 'block-cidrs': addresses, 'block-user-agents': patterns, 'block-referers': patterns,
    'proxy-real-ip-cidr': addresses };
})();

/** The arbitrary for a declared ConfigMap key: valuesOf, and for a key that closes everything on a refusal mostly valid values. */
export function configValuesOf(name: string): fc.Arbitrary<string> {
  const valid = VALID_CLOSING_VALUES[name];
  return valid === undefined ? valuesOf(name) : fc.oneof({ weight: 30, arbitrary: valid }, { weight: 1, arbitrary: valuesOf(name) });
}

/** Every annotation name a feature declares. */
export const ANNOTATION_NAMES: readonly string[] = FEATURES.flatMap((f) => f.keys.flatMap((k) => (k.annotation ? [k.annotation.name] : [])));
/** Every ConfigMap key a feature declares. */
export const CONFIG_KEY_NAMES: readonly string[] = FEATURES.flatMap((f) => f.keys.flatMap((k) => (k.configKey ? [k.configKey] : [])));

/** The arbitrary for a declared key; throws for a key nobody wrote values for (the tests fail on it). */
export function valuesOf(name: string): fc.Arbitrary<string> {
  const found = KEY_VALUES[name];
  if (found === undefined) throw new Error(`field-values.ts has no values for the feature key ${name}`);
  return found;
}

/** A name mistyped: a character dropped, doubled, swapped for a neighbour, or the case changed. */
function typo(names: readonly string[]): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom(...names), fc.nat(), fc.constantFrom('drop', 'double', 'upper', 'space', 'underscore'))
    .map(([name, at, how]) => {
      const i = at % name.length;
      if (how === 'drop') return name.slice(0, i) + name.slice(i + 1);
      if (how === 'double') return name.slice(0, i) + name[i] + name.slice(i);
      if (how === 'upper') return name.toUpperCase();
      if (how === 'space') return `${name} `;
      return name.replaceAll('-', '_');
    });
}

/** Names under the prefix that no feature declares: ingress-nginx's others, snippets, typos, garbage. */
export const otherAnnotationName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...INGRESS_NGINX_ANNOTATIONS.map((a) => a.name)),
  fc.constantFrom('modsecurity-snippet', 'stream-snippet', `${MARKER}-snippet`),
  typo(ANNOTATION_NAMES),
  fc.string({ maxLength: 20 }),
);
/** ConfigMap keys no feature declares. */
export const otherConfigKey: fc.Arbitrary<string> = fc.oneof(
  // Not a declared snippet: any text NGINX can parse is an operator's snippet, which nginx -t alone judges.
  fc.constantFrom(...INGRESS_NGINX_CONFIG_KEYS.map((k) => k.name).filter((name) => !(name.endsWith('-snippet') && CONFIG_KEY_NAMES.includes(name)))),
  typo(CONFIG_KEY_NAMES),
  fc.string({ maxLength: 20 }),
);

/** Names, hosts and paths are mostly valid: an Ingress refused for its name never shows what its values do. */
const NAME_WEIGHT = 30;

const label = fc.oneof(fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/), fc.constant(MARKER), fc.constant(`${MARKER}-a`));
const dnsName = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'));

/** Rule and TLS hosts: DNS names, wildcards, IDN, upper case, at and past the length bounds, IPs, hostile. */
export const host: fc.Arbitrary<string> = userValue(fc.oneof(
  { arbitrary: dnsName, weight: 5 },
  { arbitrary: dnsName.map((name) => `*.${name}`), weight: 2 },
  { arbitrary: fc.domain(), weight: 1 },
  { arbitrary: fc.constantFrom('bücher.example', 'xn--bcher-kva.example', 'WWW.Example.COM', '\u212aelvin.example', 'a.example.', '*', '*.', 'a.*.b', '_',
    '10.0.0.1', '[::1]', 'a..b', '-a.b', `${'a'.repeat(63)}.${MARKER}`, `${'a'.repeat(64)}.b`, `${'a.'.repeat(125)}${MARKER}`), weight: 1 },
), NAME_WEIGHT);

/** Literal paths (Exact, Prefix, ImplementationSpecific without regex), sometimes hostile or too long. */
export const literalPath: fc.Arbitrary<string> = userValue(fc.oneof(
  { arbitrary: fc.stringMatching(/^\/[A-Za-z0-9._~%!&,=@:-]{0,20}(\/[A-Za-z0-9._~-]{0,10}){0,3}\/?$/), weight: 6 },
  { arbitrary: fc.constantFrom('/', '//', `/${MARKER}`, `/${MARKER}/`, '/a/../b', '/%2e%2e/'), weight: 2 },
  { arbitrary: stretched(fc.constantFrom('a', `${MARKER}/`), '/'), weight: 1 },
), NAME_WEIGHT);

/** Regex paths (ImplementationSpecific with use-regex or rewrite-target): PCRE2/JavaScript edge cases, nesting, length. */
export const regexPath: fc.Arbitrary<string> = userValue(fc.oneof(
  { arbitrary: regex.map((body) => `/${body}`), weight: 8 },
  { arbitrary: stretched(fc.constantFrom('a', `${MARKER}/`, '(a)', '[^a]', '(?:a|b)'), '/'), weight: 1 },
), NAME_WEIGHT);

export const pathType: fc.Arbitrary<string | undefined> = fc.constantFrom('Exact', 'Prefix', 'ImplementationSpecific', 'ImplementationSpecific', undefined, 'Regex');

/** Namespaces and object names: what the API server lets through, sometimes not. */
/** The data of the auth-proxy-set-headers ConfigMap default/auth-headers (cluster-arbitrary.ts): header names and values, hostile ones too. */
export const authProxyHeaders: fc.Arbitrary<[string, string][]> = fc.array(fc.tuple(
  userValue(fc.constantFrom('X-Client', 'X-Tenant', `X-${MARKER}`, 'Host', 'x-original-url', 'My Header', `X-${'a'.repeat(45)}`)),
  userValue(fc.constantFrom('42', 'acme corp \'x\' & co', `${MARKER}`, `a ${MARKER} b`, '$remote_addr', 'a;b', '{x}', '', ' a')),
), { maxLength: 3 });
export const namespace: fc.Arbitrary<string> = userValue(fc.constantFrom('default', `${MARKER}-ns`, 'team-a', 'a'), NAME_WEIGHT);
export const objectName: fc.Arbitrary<string> = userValue(fc.oneof(dnsName, fc.constant(`${MARKER}.web`)), NAME_WEIGHT);
/** Service names (DNS-1035) and port names (IANA service names). */
export const serviceName: fc.Arbitrary<string> = userValue(fc.oneof(fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/), fc.constant(`${MARKER}-svc`)), NAME_WEIGHT);
export const portName: fc.Arbitrary<string> = userValue(fc.oneof(fc.constantFrom('http', 'https', 'web', `${MARKER}-p`, '80', 'a-'), fc.stringMatching(/^[a-z][a-z0-9-]{0,13}$/)), NAME_WEIGHT);
export const portNumber: fc.Arbitrary<number> = fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 1, max: 65535 }) }, { weight: 1, arbitrary: fc.constantFrom(0, 65536, -1, 80.5, Number.NaN) });
