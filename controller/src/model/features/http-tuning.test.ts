// The http- and main-level ConfigMap keys of gzip.ts, http2.ts, workers.ts,
// hash-sizes.ts and tls-session.ts (ingress-nginx v1.15.1: configmap.md,
// config.go's defaults). No annotation sets them. Each row: what a value gives,
// or that it is refused (the default stays, with a failure). Rendering and
// nginx -t: render/http-tuning-render.test.ts.

import { describe } from 'node:test';
import type { GzipSettings, HashSizeSettings, Http2Settings, TlsSessionSettings, WorkerSettings } from '../types.ts';
import { DEFAULT_GZIP_TYPES, gzipFeature } from './gzip.ts';
import { hashSizesFeature } from './hash-sizes.ts';
import { http2Feature } from './http2.ts';
import { testDefaults, testValueRows, type ValueRow } from './testing.ts';
import { tlsSessionFeature } from './tls-session.ts';
import { workersFeature } from './workers.ts';

const gzip: ValueRow<GzipSettings>[] = [
  { name: 'use-gzip true', key: 'use-gzip', value: 'true', want: { enabled: true } },
  { name: 'use-gzip false', key: 'use-gzip', value: 'false', want: { enabled: false } },
  { name: 'use-gzip yes', key: 'use-gzip', value: 'yes', want: 'fail' },
  { name: 'gzip-level 1', key: 'gzip-level', value: '1', want: { level: 1 } },
  { name: 'gzip-level 9', key: 'gzip-level', value: '9', want: { level: 9 } },
  { name: 'gzip-level 0 (nginx -t refuses it)', key: 'gzip-level', value: '0', want: 'fail' },
  { name: 'gzip-level 10', key: 'gzip-level', value: '10', want: 'fail' },
  { name: 'gzip-level with a directive', key: 'gzip-level', value: '5; gzip off', want: 'fail' },
  { name: 'gzip-min-length 0', key: 'gzip-min-length', value: '0', want: { minLength: 0 } },
  { name: 'gzip-min-length 100', key: 'gzip-min-length', value: '100', want: { minLength: 100 } },
  { name: 'gzip-min-length negative', key: 'gzip-min-length', value: '-1', want: 'fail' },
  { name: 'gzip-min-length with a unit', key: 'gzip-min-length', value: '1k', want: 'fail' },
  { name: 'gzip-min-length past int32', key: 'gzip-min-length', value: '2147483648', want: 'fail' },
  { name: 'gzip-types one', key: 'gzip-types', value: 'application/octet-stream', want: { types: ['application/octet-stream'] } },
  { name: 'gzip-types several, duplicates and text/html dropped', key: 'gzip-types', value: ' text/css  application/json text/css text/html ', want: { types: ['text/css', 'application/json'] } },
  { name: 'gzip-types any', key: 'gzip-types', value: '*', want: { types: ['*'] } },
  { name: 'gzip-types * among others', key: 'gzip-types', value: '* text/css', want: 'fail' },
  { name: 'gzip-types a variable', key: 'gzip-types', value: 'text/$x', want: 'fail' },
  { name: 'gzip-types no subtype', key: 'gzip-types', value: 'text', want: 'fail' },
  { name: 'gzip-types a quote and a directive', key: 'gzip-types', value: 'text/css"; gzip off; "', want: 'fail' },
  { name: 'gzip-types 201 types', key: 'gzip-types', value: Array.from({ length: 201 }, (_, i) => `x/t${i}`).join(' '), want: 'fail' },
  { name: 'gzip-disable msie6', key: 'gzip-disable', value: 'msie6', want: { disable: 'msie6' } },
  { name: 'gzip-disable a User-Agent regex (unsupported)', key: 'gzip-disable', value: 'MSIE [4-6]\\.', want: 'unsupported' },
  { name: 'gzip-disable a newline', key: 'gzip-disable', value: 'msie6\ngzip off', want: 'fail' },
];

const http2: ValueRow<Http2Settings>[] = [
  { name: 'use-http2 false', key: 'use-http2', value: 'false', want: { enabled: false } },
  { name: 'use-http2 not a boolean', key: 'use-http2', value: 'h2', want: 'fail' },
  { name: 'http2-max-concurrent-streams 64', key: 'http2-max-concurrent-streams', value: '64', want: { maxConcurrentStreams: 64 } },
  { name: 'http2-max-concurrent-streams 0', key: 'http2-max-concurrent-streams', value: '0', want: 'fail' },
  { name: 'http2-max-concurrent-streams not a number', key: 'http2-max-concurrent-streams', value: '64k', want: 'fail' },
];

const workers: ValueRow<WorkerSettings>[] = [
  { name: 'worker-processes auto', key: 'worker-processes', value: 'auto', want: { processes: 'auto' } },
  { name: 'worker-processes 4', key: 'worker-processes', value: '4', want: { processes: 4 } },
  { name: 'worker-processes 0', key: 'worker-processes', value: '0', want: 'fail' },
  { name: 'worker-processes 1025', key: 'worker-processes', value: '1025', want: 'fail' },
  { name: 'worker-processes with a directive', key: 'worker-processes', value: '2; daemon on', want: 'fail' },
  { name: 'max-worker-connections 1024', key: 'max-worker-connections', value: '1024', want: { connections: 1024 } },
  { name: 'max-worker-connections 0 (derived from open files: unsupported)', key: 'max-worker-connections', value: '0', want: 'unsupported' },
  { name: 'max-worker-connections 8', key: 'max-worker-connections', value: '8', want: 'fail' },
  { name: 'max-worker-connections past the bound', key: 'max-worker-connections', value: '1048577', want: 'fail' },
  { name: 'worker-shutdown-timeout 30s', key: 'worker-shutdown-timeout', value: '30s', want: { shutdownTimeout: 30 } },
  { name: 'worker-shutdown-timeout 5m', key: 'worker-shutdown-timeout', value: '5m', want: { shutdownTimeout: 300 } },
  { name: 'worker-shutdown-timeout bare seconds', key: 'worker-shutdown-timeout', value: '10', want: { shutdownTimeout: 10 } },
  { name: 'worker-shutdown-timeout 1h', key: 'worker-shutdown-timeout', value: '1h', want: { shutdownTimeout: 3600 } },
  { name: 'worker-shutdown-timeout past a week', key: 'worker-shutdown-timeout', value: '169h', want: 'fail' },
  { name: 'worker-shutdown-timeout compound', key: 'worker-shutdown-timeout', value: '1m30s', want: 'fail' },
  { name: 'worker-shutdown-timeout negative', key: 'worker-shutdown-timeout', value: '-5s', want: 'fail' },
];

const hashSizes: ValueRow<HashSizeSettings>[] = [
  { name: 'variables-hash-bucket-size 512', key: 'variables-hash-bucket-size', value: '512', want: { variablesBucketSize: 512 } },
  { name: 'variables-hash-bucket-size 0', key: 'variables-hash-bucket-size', value: '0', want: 'fail' },
  { name: 'variables-hash-bucket-size past NGINX\'s bound', key: 'variables-hash-bucket-size', value: '65536', want: 'fail' },
  { name: 'variables-hash-max-size 4096', key: 'variables-hash-max-size', value: '4096', want: { variablesMaxSize: 4096 } },
  { name: 'variables-hash-max-size text', key: 'variables-hash-max-size', value: 'big', want: 'fail' },
  { name: 'server-name-hash-bucket-size 0 (computed)', key: 'server-name-hash-bucket-size', value: '0', want: { serverNamesBucketSize: 0 } },
  { name: 'server-name-hash-bucket-size 256', key: 'server-name-hash-bucket-size', value: '256', want: { serverNamesBucketSize: 256 } },
  { name: 'server-name-hash-max-size 8192', key: 'server-name-hash-max-size', value: '8192', want: { serverNamesMaxSize: 8192 } },
  { name: 'server-name-hash-max-size past the bound', key: 'server-name-hash-max-size', value: '1048577', want: 'fail' },
  { name: 'map-hash-bucket-size 128', key: 'map-hash-bucket-size', value: '128', want: { mapBucketSize: 128 } },
  { name: 'map-hash-bucket-size negative', key: 'map-hash-bucket-size', value: '-64', want: 'fail' },
];

const tlsSession: ValueRow<TlsSessionSettings>[] = [
  { name: 'ssl-session-cache false', key: 'ssl-session-cache', value: 'false', want: { cache: false } },
  { name: 'ssl-session-cache-size 20m', key: 'ssl-session-cache-size', value: '20m', want: { cacheSize: '20m' } },
  { name: 'ssl-session-cache-size 512k', key: 'ssl-session-cache-size', value: '512k', want: { cacheSize: '512k' } },
  { name: 'ssl-session-cache-size too small for a zone', key: 'ssl-session-cache-size', value: '16k', want: 'fail' },
  { name: 'ssl-session-cache-size in gigabytes', key: 'ssl-session-cache-size', value: '2g', want: 'fail' },
  { name: 'ssl-session-cache-size with a directive', key: 'ssl-session-cache-size', value: '10m; ssl_session_tickets on', want: 'fail' },
  { name: 'ssl-session-timeout 1h', key: 'ssl-session-timeout', value: '1h', want: { timeout: '1h' } },
  { name: 'ssl-session-timeout 1d', key: 'ssl-session-timeout', value: '1d', want: { timeout: '1d' } },
  { name: 'ssl-session-timeout past a week', key: 'ssl-session-timeout', value: '8d', want: 'fail' },
  { name: 'ssl-session-timeout 0', key: 'ssl-session-timeout', value: '0', want: 'fail' },
  { name: 'ssl-session-tickets true', key: 'ssl-session-tickets', value: 'true', want: { tickets: true } },
  { name: 'ssl-buffer-size 16k', key: 'ssl-buffer-size', value: '16k', want: { bufferSize: '16k' } },
  { name: 'ssl-buffer-size 1400 bytes', key: 'ssl-buffer-size', value: '1400', want: { bufferSize: '1400' } },
  { name: 'ssl-buffer-size past a record', key: 'ssl-buffer-size', value: '32k', want: 'fail' },
  { name: 'ssl-ecdh-curve auto', key: 'ssl-ecdh-curve', value: 'auto', want: { ecdhCurve: 'auto' } },
  { name: 'ssl-ecdh-curve a list', key: 'ssl-ecdh-curve', value: 'X25519:prime256v1:secp384r1', want: { ecdhCurve: 'X25519:prime256v1:secp384r1' } },
  { name: 'ssl-ecdh-curve an unknown curve (nginx -t would fail)', key: 'ssl-ecdh-curve', value: 'X25519:nocurve', want: 'fail' },
  { name: 'ssl-ecdh-curve with a directive', key: 'ssl-ecdh-curve', value: 'auto; ssl_early_data on', want: 'fail' },
  { name: 'ssl-early-data true', key: 'ssl-early-data', value: 'true', want: { earlyData: true } },
  { name: 'ssl-early-data on', key: 'ssl-early-data', value: 'on', want: 'fail' },
  { name: 'ssl-reject-handshake true', key: 'ssl-reject-handshake', value: 'true', want: { rejectHandshake: true } },
  { name: 'ssl-reject-handshake not a boolean', key: 'ssl-reject-handshake', value: 'reject', want: 'fail' },
];

void describe('gzip: values', () => testValueRows(gzipFeature, gzip));
void describe('http2: values', () => testValueRows(http2Feature, http2));
void describe('workers: values', () => testValueRows(workersFeature, workers));
void describe('hash sizes: values', () => testValueRows(hashSizesFeature, hashSizes));
void describe('TLS sessions: values', () => testValueRows(tlsSessionFeature, tlsSession));

void describe('gzip: defaults (ingress-nginx\'s)', () => testDefaults(gzipFeature, { enabled: false, level: 1, minLength: 256, types: DEFAULT_GZIP_TYPES, disable: null }));
void describe('http2: defaults', () => testDefaults(http2Feature, { enabled: true, maxConcurrentStreams: 128 }));
void describe('workers: defaults', () => testDefaults(workersFeature, { processes: 'auto', connections: 16_384, shutdownTimeout: 240 }));
void describe('hash sizes: defaults', () => testDefaults(hashSizesFeature, {
  variablesBucketSize: 256, variablesMaxSize: 2048, serverNamesBucketSize: 0, serverNamesMaxSize: 1024, mapBucketSize: 64,
}));
void describe('TLS sessions: defaults', () => testDefaults(tlsSessionFeature, {
  cache: true, cacheSize: '10m', timeout: '10m', tickets: false, bufferSize: '4k', ecdhCurve: 'auto', earlyData: false, rejectHandshake: false, ticketKey: null, dhParamSecret: null,
  dhParam: null,
}));
