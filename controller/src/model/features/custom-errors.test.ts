// custom-http-errors, disable-proxy-intercept-errors, default-backend (ingress-nginx v1.15.1:
// internal/ingress/annotations/{customhttperrors,disableproxyintercepterrors,defaultbackend},
// template/configmap.go filterErrors). The annotation's codes are validated by
// `^(?:[4,5]\d{2},?)*$` without spaces (invalid: the Ingress is not served); the ConfigMap's are
// read with the same grammar here. disable-proxy-intercept-errors ignores what ParseBool cannot read (false).
// default-backend must be a DNS-1035 label (invalid: the Ingress is not served).

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { CustomErrorsConfig } from '../types.ts';
import { customErrorsFeature } from './custom-errors.ts';
import {
  ingressConfig, parseAnnotations, testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow,
} from './testing.ts';

const DEFAULTS: CustomErrorsConfig = { codes: [], interceptDisabled: false, defaultService: null, backend: null };

/** Rows both sources read alike. */
const values: ValueRow<CustomErrorsConfig>[] = [
  { name: 'custom-http-errors one code', key: 'custom-http-errors', value: '404', want: { codes: [404] } },
  { name: 'custom-http-errors two codes', key: 'custom-http-errors', value: '503,404', want: { codes: [404, 503] } },
  { name: 'custom-http-errors with spaces', key: 'custom-http-errors', value: '404, 500 ,502', want: { codes: [404, 500, 502] } },
  { name: 'custom-http-errors repeated', key: 'custom-http-errors', value: '503,503,404', want: { codes: [404, 503] } },
  { name: 'custom-http-errors trailing comma', key: 'custom-http-errors', value: '404,', want: { codes: [404] } },
  { name: 'custom-http-errors 599 (the highest)', key: 'custom-http-errors', value: '599', want: { codes: [599] } },
  { name: 'custom-http-errors 400 (the lowest)', key: 'custom-http-errors', value: '400', want: { codes: [400] } },
  { name: 'custom-http-errors spaces inside a code (removed, as ingress-nginx does)', key: 'custom-http-errors', value: '4 04', want: { codes: [404] } },
  { name: 'custom-http-errors 301', key: 'custom-http-errors', value: '301', want: 'fail' },
  { name: 'custom-http-errors 399 and 404', key: 'custom-http-errors', value: '399,404', want: 'fail' },
  { name: 'custom-http-errors 600', key: 'custom-http-errors', value: '600', want: 'fail' },
  { name: 'custom-http-errors 200', key: 'custom-http-errors', value: '200', want: 'fail' },
  { name: 'custom-http-errors a word', key: 'custom-http-errors', value: 'notfound', want: 'fail' },
  { name: 'custom-http-errors four digits', key: 'custom-http-errors', value: '4040', want: 'fail' },
  { name: 'custom-http-errors a semicolon', key: 'custom-http-errors', value: '404;500', want: 'fail' },
  { name: 'custom-http-errors a newline', key: 'custom-http-errors', value: '404\n500', want: 'fail' },
  { name: 'custom-http-errors two commas', key: 'custom-http-errors', value: '404,,500', want: 'fail' },
  { name: 'custom-http-errors commas only', key: 'custom-http-errors', value: ',,', want: 'fail' },
  // `[4,5]` takes a comma: ingress-nginx accepts ",12" (code 12), which NGINX would refuse.
  { name: 'custom-http-errors the comma of the character class', key: 'custom-http-errors', value: ',12', want: 'unsupported' },
  { name: 'custom-http-errors empty: none (the default)', key: 'custom-http-errors', value: '', want: { codes: [] } },
  { name: 'disable-proxy-intercept-errors true', key: 'disable-proxy-intercept-errors', value: 'true', want: { interceptDisabled: true } },
  { name: 'disable-proxy-intercept-errors False', key: 'disable-proxy-intercept-errors', value: 'False', want: { interceptDisabled: false } },
  { name: 'disable-proxy-intercept-errors 1', key: 'disable-proxy-intercept-errors', value: '1', want: { interceptDisabled: true } },
  { name: 'disable-proxy-intercept-errors yes', key: 'disable-proxy-intercept-errors', value: 'yes', want: 'ignore' },
  { name: 'disable-proxy-intercept-errors empty', key: 'disable-proxy-intercept-errors', value: '', want: 'ignore' },
  { name: 'default-backend', key: 'default-backend', value: 'error-pages', want: { defaultService: 'error-pages' } },
  { name: 'default-backend of 63 characters', key: 'default-backend', value: `e${'x'.repeat(62)}`, want: { defaultService: `e${'x'.repeat(62)}` } },
  { name: 'default-backend of 64 characters', key: 'default-backend', value: `e${'x'.repeat(63)}`, want: 'fail' },
  { name: 'default-backend namespace/name', key: 'default-backend', value: 'other/error-pages', want: 'fail' },
  { name: 'default-backend upper case', key: 'default-backend', value: 'Errors', want: 'fail' },
  { name: 'default-backend starting with a digit', key: 'default-backend', value: '1errors', want: 'fail' },
  { name: 'default-backend with a quote', key: 'default-backend', value: 'e"x', want: 'fail' },
  { name: 'default-backend with a newline', key: 'default-backend', value: 'e\nx', want: 'fail' },
  { name: 'default-backend empty', key: 'default-backend', value: '', want: 'ignore' },
];

/** Annotations over a ConfigMap: an Ingress's config never inherits the ConfigMap's codes. */
const overrides: OverrideRow<CustomErrorsConfig>[] = [
  { name: 'no annotation: the global config applies', configMap: { 'custom-http-errors': '404' }, annotations: {}, global: { codes: [404] }, want: null },
  {
    name: 'the annotation replaces the ConfigMap\'s codes',
    configMap: { 'custom-http-errors': '404,500' }, annotations: { 'custom-http-errors': '503' }, global: { codes: [404, 500] }, want: { codes: [503] },
  },
  {
    name: 'default-backend alone: no codes of its own (the ConfigMap\'s stay server-level)',
    configMap: { 'custom-http-errors': '404' }, annotations: { 'default-backend': 'errors' }, global: { codes: [404] }, want: { codes: [], defaultService: 'errors' },
  },
  {
    name: 'the ConfigMap\'s disable-proxy-intercept-errors is not the Ingress\'s',
    configMap: { 'custom-http-errors': '404', 'disable-proxy-intercept-errors': 'true' }, annotations: { 'custom-http-errors': '503' },
    global: { codes: [404], interceptDisabled: true }, want: { codes: [503], interceptDisabled: false },
  },
  {
    name: 'an invalid disable-proxy-intercept-errors: false, with a warning',
    configMap: {}, annotations: { 'custom-http-errors': '503', 'disable-proxy-intercept-errors': 'maybe' },
    global: {}, want: { codes: [503] }, ignored: ['disable-proxy-intercept-errors'],
  },
];

void describe('custom errors feature', () => {
  testDefaults(customErrorsFeature, DEFAULTS);
  void describe('values', () => testValueRows(customErrorsFeature, values));
  void describe('overrides', () => testOverrideRows(customErrorsFeature, overrides));
  void it('the builder\'s field is never parsed: no key writes `backend`', () => {
    const parsed = parseAnnotations({ 'custom-http-errors': '404', 'default-backend': 'errors', 'disable-proxy-intercept-errors': 'true' });
    assert.deepEqual(ingressConfig(parsed, 'customErrors'), { codes: [404], interceptDisabled: true, defaultService: 'errors', backend: null });
  });
});
