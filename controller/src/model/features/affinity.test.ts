// affinity and session-cookie-* (ingress-nginx v1.15.1: internal/ingress/annotations/
// sessionaffinity and its test). ingress-nginx validates each key (its validators trim or
// remove spaces first), logs an invalid value and uses the default: every invalid value is
// ignored here too, with a warning. Values ingress-nginx takes that this controller cannot
// honour (a cookie name or domain that is no RFC 6265 token, a space inside a value, a
// lifetime past 32 bits) refuse the Ingress. There are no ConfigMap keys.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AffinityConfig } from '../types.ts';
import { affinityFeature } from './affinity.ts';
import { described, ingressConfig, parseAnnotations, readConfigMap, testDefaults, testValueRows, type ValueRow } from './testing.ts';

const ON = { affinity: 'cookie' };
const BASE: Partial<AffinityConfig> = { enabled: true };

const values: ValueRow<AffinityConfig>[] = [
  { name: 'affinity: cookie', key: 'affinity', value: 'cookie', want: { enabled: true } },
  { name: 'affinity: spaces around cookie are trimmed', key: 'affinity', value: ' cookie ', want: { enabled: true } },
  { name: 'affinity: Cookie (case-sensitive)', key: 'affinity', value: 'Cookie', want: 'ignore' },
  { name: 'affinity: ip (no other type)', key: 'affinity', value: 'ip', want: 'ignore' },
  { name: 'affinity: empty', key: 'affinity', value: '', want: 'ignore' },
  { name: 'affinity-mode: persistent', key: 'affinity-mode', value: 'persistent', want: { mode: 'persistent' } },
  { name: 'affinity-mode: balanced', key: 'affinity-mode', value: 'balanced', want: { mode: 'balanced' } },
  { name: 'affinity-mode: Persistent (case-sensitive)', key: 'affinity-mode', value: 'Persistent', want: 'ignore' },
  { name: 'affinity-mode: sticky (unknown)', key: 'affinity-mode', value: 'sticky', want: 'ignore' },
  { name: 'affinity-canary-behavior: legacy', key: 'affinity-canary-behavior', value: 'legacy', want: { canaryBehavior: 'legacy' } },
  { name: 'affinity-canary-behavior: sticky', key: 'affinity-canary-behavior', value: ' sticky', want: { canaryBehavior: 'sticky' } },
  { name: 'affinity-canary-behavior: other', key: 'affinity-canary-behavior', value: 'always', want: 'ignore' },
  { name: 'session-cookie-name: SERVERID', key: 'session-cookie-name', value: 'SERVERID', with: ON, base: BASE, want: { cookieName: 'SERVERID' } },
  { name: 'session-cookie-name: dots, dashes, tildes', key: 'session-cookie-name', value: 'a.b-c_d~e', with: ON, base: BASE, want: { cookieName: 'a.b-c_d~e' } },
  { name: 'session-cookie-name: trimmed', key: 'session-cookie-name', value: ' route ', with: ON, base: BASE, want: { cookieName: 'route' } },
  { name: 'session-cookie-name: a slash (ingress-nginx takes it, no token)', key: 'session-cookie-name', value: 'a/b', with: ON, base: BASE, want: 'unsupported' },
  { name: 'session-cookie-name: a space inside', key: 'session-cookie-name', value: 'my cookie', with: ON, base: BASE, want: 'unsupported' },
  { name: 'session-cookie-name: 129 characters', key: 'session-cookie-name', value: 'c'.repeat(129), with: ON, base: BASE, want: 'unsupported' },
  { name: 'session-cookie-name: a semicolon', key: 'session-cookie-name', value: 'a;b', with: ON, base: BASE, want: 'ignore' },
  { name: 'session-cookie-name: an equals sign', key: 'session-cookie-name', value: 'a=b', with: ON, base: BASE, want: 'ignore' },
  { name: 'session-cookie-name: spaces only', key: 'session-cookie-name', value: '  ', with: ON, base: BASE, want: 'ignore' },
  { name: 'session-cookie-path: /foo/bar', key: 'session-cookie-path', value: '/foo/bar', with: ON, base: BASE, want: { cookiePath: '/foo/bar' } },
  { name: 'session-cookie-path: URL characters', key: 'session-cookie-path', value: '/a?b=c&d,e:f', with: ON, base: BASE, want: { cookiePath: '/a?b=c&d,e:f' } },
  { name: 'session-cookie-path: a semicolon (an attribute of its own)', key: 'session-cookie-path', value: '/; Domain=evil', with: ON, base: BASE, want: 'ignore' },
  { name: 'session-cookie-path: a regex', key: 'session-cookie-path', value: '/foo.*', with: ON, base: BASE, want: 'ignore' },
  { name: 'session-cookie-path: a space inside', key: 'session-cookie-path', value: '/a b', with: ON, base: BASE, want: 'unsupported' },
  { name: 'session-cookie-domain: foo.bar', key: 'session-cookie-domain', value: 'foo.bar', with: ON, base: BASE, want: { cookieDomain: 'foo.bar' } },
  { name: 'session-cookie-domain: a comma', key: 'session-cookie-domain', value: 'a,b', with: ON, base: BASE, want: 'ignore' },
  { name: 'session-cookie-domain: a CR LF', key: 'session-cookie-domain', value: 'a\r\nSet-Cookie: x', with: ON, base: BASE, want: 'ignore' },
  { name: 'session-cookie-expires: 172800', key: 'session-cookie-expires', value: '172800', with: ON, base: BASE, want: { cookieExpires: 172800 } },
  { name: 'session-cookie-expires: 0', key: 'session-cookie-expires', value: '0', with: ON, base: BASE, want: { cookieExpires: 0 } },
  { name: 'session-cookie-expires: negative', key: 'session-cookie-expires', value: '-60', with: ON, base: BASE, want: { cookieExpires: -60 } },
  { name: 'session-cookie-expires: 1h (no unit)', key: 'session-cookie-expires', value: '1h', with: ON, base: BASE, want: 'ignore' },
  { name: 'session-cookie-expires: 0abc (passes ingress-nginx\'s loose check, breaks its Lua)', key: 'session-cookie-expires', value: '0abc', with: ON, base: BASE, want: 'ignore' },
  { name: 'session-cookie-expires: past 32 bits', key: 'session-cookie-expires', value: '2147483648', with: ON, base: BASE, want: 'unsupported' },
  { name: 'session-cookie-max-age: 259200', key: 'session-cookie-max-age', value: '259200', with: ON, base: BASE, want: { cookieMaxAge: 259200 } },
  { name: 'session-cookie-max-age: 3.5', key: 'session-cookie-max-age', value: '3.5', with: ON, base: BASE, want: 'ignore' },
  { name: 'session-cookie-secure: true', key: 'session-cookie-secure', value: 'true', with: ON, base: BASE, want: { cookieSecure: true } },
  { name: 'session-cookie-secure: yes (no ParseBool spelling)', key: 'session-cookie-secure', value: 'yes', with: ON, base: BASE, want: 'ignore' },
  { name: 'session-cookie-samesite: None', key: 'session-cookie-samesite', value: 'None', with: ON, base: BASE, want: { cookieSameSite: 'None' } },
  { name: 'session-cookie-samesite: LAX (any case, kept as written)', key: 'session-cookie-samesite', value: 'LAX', with: ON, base: BASE, want: { cookieSameSite: 'LAX' } },
  { name: 'session-cookie-samesite: Strict trimmed', key: 'session-cookie-samesite', value: ' Strict ', with: ON, base: BASE, want: { cookieSameSite: 'Strict' } },
  { name: 'session-cookie-samesite: other', key: 'session-cookie-samesite', value: 'Relaxed', with: ON, base: BASE, want: 'ignore' },
  { name: 'session-cookie-conditional-samesite-none: true', key: 'session-cookie-conditional-samesite-none', value: 'true', with: ON, base: BASE, want: { cookieConditionalSameSiteNone: true } },
  { name: 'session-cookie-change-on-failure: true', key: 'session-cookie-change-on-failure', value: 'True', with: ON, base: BASE, want: { cookieChangeOnFailure: true } },
  { name: 'session-cookie-change-on-failure: on', key: 'session-cookie-change-on-failure', value: 'on', with: ON, base: BASE, want: 'ignore' },
];

void describe('affinity: values', () => testValueRows(affinityFeature, values));
void describe('affinity: defaults', () => testDefaults(affinityFeature, {
  enabled: false, mode: 'balanced', canaryBehavior: 'sticky', cookieName: 'INGRESSCOOKIE', cookiePath: null, cookieDomain: null,
  cookieExpires: null, cookieMaxAge: null, cookieSecure: false, cookieSameSite: null, cookieConditionalSameSiteNone: false, cookieChangeOnFailure: false,
}));

void describe('affinity: read together', () => {
  void it('ingress-nginx\'s TestIngressAffinityCookieConfig: every key at once', () => {
    const parsed = parseAnnotations({
      affinity: 'cookie', 'affinity-mode': 'balanced', 'session-cookie-name': 'INGRESSCOOKIE', 'session-cookie-expires': '4500',
      'session-cookie-max-age': '3000', 'session-cookie-path': '/foo', 'session-cookie-domain': 'foo.bar', 'session-cookie-samesite': 'Strict',
      'session-cookie-change-on-failure': 'true', 'session-cookie-secure': 'true',
    });
    assert.equal(parsed.ok, true);
    assert.deepEqual(ingressConfig(parsed, 'affinity'), {
      enabled: true, mode: 'balanced', canaryBehavior: 'sticky', cookieName: 'INGRESSCOOKIE', cookiePath: '/foo', cookieDomain: 'foo.bar',
      cookieExpires: 4500, cookieMaxAge: 3000, cookieSecure: true, cookieSameSite: 'Strict', cookieConditionalSameSiteNone: false, cookieChangeOnFailure: true,
    });
  });

  void it('cookie settings without affinity: cookie are kept but turn nothing on (not refused)', () => {
    const parsed = parseAnnotations({ 'session-cookie-name': 'SERVERID' });
    assert.equal(parsed.ok, true);
    assert.equal(ingressConfig(parsed, 'affinity')?.enabled, false);
  });

  void it('a ConfigMap key of the same name is not a setting (annotations only, as in ingress-nginx)', () => {
    const read = readConfigMap({ affinity: 'cookie' });
    assert.equal(read.settings.affinity.enabled, false);
    assert.deepEqual(described(read.failures), ['UnknownConfigMapKey ConfigMap ingress/resty-ingress: data[affinity] (warning)']);
  });

  void it('the feature is dynamic (Lua), so a change never reloads', () => {
    assert.equal(affinityFeature.output.kind, 'lua');
  });
});
