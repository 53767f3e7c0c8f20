// upstream-vhost and x-forwarded-prefix (ingress-nginx v1.15.1:
// internal/ingress/annotations/upstreamvhost and xforwardedprefix, parser/validators.go:
// ValidateServerName = IsValidRegex on the trimmed value, RegexPathWithCapture with the
// spaces removed). Both refuse the Ingress on an invalid value there (a validation error):
// the same here. What ingress-nginx lets through but is no plain host or path (NGINX
// variables, regex characters, spaces) is unsupported: the Ingress is not served. An empty
// value sends no X-Forwarded-Prefix and the request's Host (ingress-nginx's e2e test).

import { describe } from 'node:test';
import type { UpstreamHeadersConfig } from '../types.ts';
import { upstreamHeadersFeature } from './upstream-headers.ts';
import { testDefaults, testValueRows, type ValueRow } from './testing.ts';

const vhost = 'upstream-vhost';
const prefix = 'x-forwarded-prefix';

const values: ValueRow<UpstreamHeadersConfig>[] = [
  { name: 'a host name (ingress-nginx\'s e2e test)', key: vhost, value: 'upstreamvhost.bar.com', want: { host: 'upstreamvhost.bar.com' } },
  { name: 'a cluster-internal name with a port', key: vhost, value: 'api.team-a.svc.cluster.local:8080', want: { host: 'api.team-a.svc.cluster.local:8080' } },
  { name: 'a single label', key: vhost, value: 'backend', want: { host: 'backend' } },
  { name: 'a trailing dot', key: vhost, value: 'example.com.', want: { host: 'example.com.' } },
  { name: 'an underscore', key: vhost, value: 'my_service.local', want: { host: 'my_service.local' } },
  { name: 'upper case is kept', key: vhost, value: 'API.Example.com', want: { host: 'API.Example.com' } },
  { name: 'an IPv4 address and port', key: vhost, value: '10.0.0.7:80', want: { host: '10.0.0.7:80' } },
  { name: 'an IPv6 literal and port', key: vhost, value: '[fd00::1]:8443', want: { host: '[fd00::1]:8443' } },
  { name: 'spaces around it are trimmed', key: vhost, value: '  api.internal ', want: { host: 'api.internal' } },
  { name: 'spaces only: the request\'s host', key: vhost, value: '   ', want: {} },
  { name: 'an NGINX variable (ingress-nginx passes it to NGINX)', key: vhost, value: '$host', want: 'unsupported' },
  { name: 'a variable inside a name', key: vhost, value: '$service_name.svc', want: 'unsupported' },
  { name: 'a wildcard', key: vhost, value: '*.example.com', want: 'unsupported' },
  { name: 'port 0', key: vhost, value: 'example.com:0', want: 'unsupported' },
  { name: 'port 65536', key: vhost, value: 'example.com:65536', want: 'unsupported' },
  { name: 'a label starting with -', key: vhost, value: '-a.example.com', want: 'unsupported' },
  { name: 'an empty label', key: vhost, value: 'a..example.com', want: 'unsupported' },
  { name: 'a quote', key: vhost, value: 'a"b', want: 'fail' },
  { name: 'a space inside', key: vhost, value: 'a b', want: 'fail' },
  { name: 'a directive', key: vhost, value: 'a.com; return 200', want: 'fail' },
  { name: 'a newline', key: vhost, value: 'a.com\nX: y', want: 'fail' },
  { name: 'a non-ASCII name', key: vhost, value: 'bücher.example', want: 'fail' },
  { name: 'empty: the request\'s host', key: vhost, value: '', want: 'ignore' },
  { name: 'a path (ingress-nginx\'s e2e test)', key: prefix, value: '/test/value', want: { prefix: '/test/value' } },
  { name: 'a path with a capture', key: prefix, value: '/api/$1', want: { prefix: '/api/$1' } },
  { name: 'without a leading slash', key: prefix, value: 'api', want: { prefix: 'api' } },
  { name: 'characters the grammar allows', key: prefix, value: '/a-b_c.d~e:f/', want: { prefix: '/a-b_c.d~e:f/' } },
  { name: 'trimmed', key: prefix, value: ' /api ', want: { prefix: '/api' } },
  { name: 'spaces only: not sent', key: prefix, value: '  ', want: {} },
  { name: 'an NGINX variable (ingress-nginx passes it to NGINX)', key: prefix, value: '/$host', want: 'unsupported' },
  { name: 'a $ alone', key: prefix, value: '/a$', want: 'unsupported' },
  { name: 'a space inside (ingress-nginx checks without spaces and sends them)', key: prefix, value: '/a b', want: 'unsupported' },
  { name: 'longer than 1024 characters', key: prefix, value: `/${'a'.repeat(1024)}`, want: 'unsupported' },
  { name: 'a quote', key: prefix, value: '/a"b', want: 'fail' },
  { name: 'a semicolon', key: prefix, value: '/a;b', want: 'fail' },
  { name: 'a brace', key: prefix, value: '/a{b}', want: 'fail' },
  { name: 'a newline', key: prefix, value: '/a\nb', want: 'fail' },
  { name: 'a query', key: prefix, value: '/a?b=c', want: 'fail' },
  { name: 'empty: not sent (ingress-nginx\'s e2e test)', key: prefix, value: '', want: 'ignore' },
];

void describe('upstream headers: values', () => testValueRows(upstreamHeadersFeature, values));
void describe('upstream headers: defaults', () => testDefaults(upstreamHeadersFeature, { host: null, prefix: null }));
