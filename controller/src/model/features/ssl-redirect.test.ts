// ssl-redirect and force-ssl-redirect (ingress-nginx v1.15.1: the rewrite package's
// annotations and its TestSSLRedirect / TestForceSSLRedirect, and the ConfigMap keys of
// the same names): booleans in Go's ParseBool spellings. As in ingress-nginx, an invalid
// annotation is ignored with a warning and the ConfigMap's value applies (the keys'
// `invalid: 'ignore'`).

import { describe } from 'node:test';
import type { SslRedirectConfig } from '../types.ts';
import { sslRedirectFeature } from './ssl-redirect.ts';
import { testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const redirect = 'ssl-redirect';
const force = 'force-ssl-redirect';

const values: ValueRow<SslRedirectConfig>[] = [
  { name: 'ssl-redirect false', key: redirect, value: 'false', want: { redirect: false } },
  { name: 'ssl-redirect true', key: redirect, value: 'true', want: { redirect: true } },
  { name: 'ssl-redirect 0', key: redirect, value: '0', want: { redirect: false } },
  { name: 'ssl-redirect F', key: redirect, value: 'F', want: { redirect: false } },
  { name: 'ssl-redirect FALSE', key: redirect, value: 'FALSE', want: { redirect: false } },
  { name: 'ssl-redirect yes', key: redirect, value: 'yes', want: 'ignore' },
  { name: 'ssl-redirect off', key: redirect, value: 'off', want: 'ignore' },
  { name: 'ssl-redirect fALSE (not a ParseBool spelling)', key: redirect, value: 'fALSE', want: 'ignore' },
  { name: 'ssl-redirect with a space', key: redirect, value: 'false ', want: 'ignore' },
  { name: 'ssl-redirect empty', key: redirect, value: '', want: 'ignore' },
  { name: 'force-ssl-redirect true', key: force, value: 'true', want: { force: true } },
  { name: 'force-ssl-redirect t', key: force, value: 't', want: { force: true } },
  { name: 'force-ssl-redirect False', key: force, value: 'False', want: { force: false } },
  { name: 'force-ssl-redirect 1', key: force, value: '1', want: { force: true } },
  { name: 'force-ssl-redirect maybe', key: force, value: 'maybe', want: 'ignore' },
  { name: 'force-ssl-redirect with a newline', key: force, value: 'true\n', want: 'ignore' },
  { name: 'force-ssl-redirect empty', key: force, value: '', want: 'ignore' },
];

const overrides: OverrideRow<SslRedirectConfig>[] = [
  { name: 'no annotation: the ConfigMap\'s ssl-redirect applies', configMap: { [redirect]: 'false' }, annotations: {}, global: { redirect: false }, want: null },
  {
    name: 'ssl-redirect: the annotation beats the ConfigMap',
    configMap: { [redirect]: 'false' }, annotations: { [redirect]: 'true' }, global: { redirect: false }, want: { redirect: true },
  },
  {
    name: 'force-ssl-redirect: the annotation switches the ConfigMap\'s off',
    configMap: { [force]: 'true' }, annotations: { [force]: 'false' }, global: { force: true }, want: { force: false },
  },
  {
    name: 'force-ssl-redirect on an Ingress keeps the ConfigMap\'s ssl-redirect',
    configMap: { [redirect]: 'false' }, annotations: { [force]: 'true' }, global: { redirect: false }, want: { force: true },
  },
  // ingress-nginx: "ssl-redirect is invalid, defaulting to" the ConfigMap's value (GetDefaultBackend).
  {
    name: 'an invalid ssl-redirect is ignored: the ConfigMap\'s value applies',
    configMap: { [redirect]: 'false' }, annotations: { [redirect]: 'yes' }, global: { redirect: false }, want: {}, ignored: [redirect],
  },
  {
    name: 'an invalid force-ssl-redirect is ignored: the ConfigMap\'s value applies',
    configMap: { [force]: 'true' }, annotations: { [force]: 'no' }, global: { force: true }, want: {}, ignored: [force],
  },
  {
    name: 'an ignored ssl-redirect beside a valid force-ssl-redirect',
    configMap: {}, annotations: { [redirect]: 'on', [force]: 'true' }, global: {}, want: { force: true }, ignored: [redirect],
  },
  {
    name: 'both ConfigMap keys at once',
    configMap: { [redirect]: 'false', [force]: 'true' }, annotations: {}, global: { redirect: false, force: true }, want: null,
  },
];

void describe('ssl-redirect: values', () => testValueRows(sslRedirectFeature, values));
void describe('ssl-redirect: the ConfigMap\'s global value, an Ingress\'s override', () => testOverrideRows(sslRedirectFeature, overrides));
void describe('ssl-redirect: defaults', () => testDefaults(sslRedirectFeature, { redirect: true, force: false }));
