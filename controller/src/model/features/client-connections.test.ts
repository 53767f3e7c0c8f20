// The ConfigMap-only connection keys (ingress-nginx v1.15.1 config.go defaults; nginx.tmpl prints
// them in http {} and `upstream upstream_balancer`). ingress-nginx reads them unchecked; here a
// refused value keeps the default with an InvalidConfigMapValue failure, and no annotation of
// these names exists (the helper checks each accepted value is not read from annotations).

import { describe } from 'node:test';
import type { ClientConnectionsSettings } from '../types.ts';
import { clientConnectionsFeature } from './client-connections.ts';
import { testDefaults, testValueRows, type ValueRow } from './testing.ts';

const values: ValueRow<ClientConnectionsSettings>[] = [
  { name: 'client-header-buffer-size 4k', key: 'client-header-buffer-size', value: '4k', want: { clientHeaderBufferSize: '4k' } },
  { name: 'client-header-buffer-size 1m (the most)', key: 'client-header-buffer-size', value: '1m', want: { clientHeaderBufferSize: '1m' } },
  { name: 'client-header-buffer-size 2m', key: 'client-header-buffer-size', value: '2m', want: 'unsupported' },
  { name: 'client-header-buffer-size a word', key: 'client-header-buffer-size', value: 'small', want: 'fail' },
  { name: 'large-client-header-buffers 4 16k', key: 'large-client-header-buffers', value: '4 16k', want: { largeClientHeaderBuffers: { number: 4, size: '16k' } } },
  { name: 'large-client-header-buffers 8 1m (the largest)', key: 'large-client-header-buffers', value: '8 1m', want: { largeClientHeaderBuffers: { number: 8, size: '1m' } } },
  { name: 'large-client-header-buffers with extra spaces', key: 'large-client-header-buffers', value: ' 2   1k ', want: { largeClientHeaderBuffers: { number: 2, size: '1k' } } },
  { name: 'large-client-header-buffers 4 256 (below connection_pool_size)', key: 'large-client-header-buffers', value: '4 256', want: 'unsupported' },
  { name: 'large-client-header-buffers 0 8k', key: 'large-client-header-buffers', value: '0 8k', want: 'unsupported' },
  { name: 'large-client-header-buffers of one word', key: 'large-client-header-buffers', value: '8k', want: 'fail' },
  { name: 'large-client-header-buffers with a directive', key: 'large-client-header-buffers', value: '4 8k; allow all', want: 'fail' },
  { name: 'client-header-timeout 10', key: 'client-header-timeout', value: '10', want: { clientHeaderTimeout: 10 } },
  { name: 'client-header-timeout 0', key: 'client-header-timeout', value: '0', want: 'unsupported' },
  { name: 'client-body-timeout 120s', key: 'client-body-timeout', value: '120s', want: { clientBodyTimeout: 120 } },
  { name: 'client-body-timeout 1m', key: 'client-body-timeout', value: '1m', want: 'fail' },
  { name: 'keep-alive 0 (off)', key: 'keep-alive', value: '0', want: { keepAlive: 0 } },
  { name: 'keep-alive 30', key: 'keep-alive', value: '30', want: { keepAlive: 30 } },
  { name: 'keep-alive -1', key: 'keep-alive', value: '-1', want: 'unsupported' },
  { name: 'keep-alive-requests 100', key: 'keep-alive-requests', value: '100', want: { keepAliveRequests: 100 } },
  { name: 'keep-alive-requests 0', key: 'keep-alive-requests', value: '0', want: 'unsupported' },
  { name: 'upstream-keepalive-connections 0 (none)', key: 'upstream-keepalive-connections', value: '0', want: { upstreamKeepaliveConnections: 0 } },
  { name: 'upstream-keepalive-connections 64', key: 'upstream-keepalive-connections', value: '64', want: { upstreamKeepaliveConnections: 64 } },
  { name: 'upstream-keepalive-connections lots', key: 'upstream-keepalive-connections', value: 'lots', want: 'fail' },
  { name: 'upstream-keepalive-time 30m', key: 'upstream-keepalive-time', value: '30m', want: { upstreamKeepaliveTime: '30m' } },
  { name: 'upstream-keepalive-time 90 (seconds)', key: 'upstream-keepalive-time', value: '90', want: { upstreamKeepaliveTime: '90' } },
  { name: 'upstream-keepalive-time 7d (the most)', key: 'upstream-keepalive-time', value: '7d', want: { upstreamKeepaliveTime: '7d' } },
  { name: 'upstream-keepalive-time 8d', key: 'upstream-keepalive-time', value: '8d', want: 'unsupported' },
  { name: 'upstream-keepalive-time 0s', key: 'upstream-keepalive-time', value: '0s', want: 'unsupported' },
  { name: 'upstream-keepalive-time 1h30m (two units)', key: 'upstream-keepalive-time', value: '1h30m', want: 'fail' },
  { name: 'upstream-keepalive-time with a directive', key: 'upstream-keepalive-time', value: '1h; allow all', want: 'fail' },
  { name: 'upstream-keepalive-timeout 30', key: 'upstream-keepalive-timeout', value: '30', want: { upstreamKeepaliveTimeout: 30 } },
  { name: 'upstream-keepalive-timeout 0', key: 'upstream-keepalive-timeout', value: '0', want: 'unsupported' },
  { name: 'upstream-keepalive-requests 500', key: 'upstream-keepalive-requests', value: '500', want: { upstreamKeepaliveRequests: 500 } },
  { name: 'upstream-keepalive-requests 1e3', key: 'upstream-keepalive-requests', value: '1e3', want: 'fail' },
];

void describe('client connections: values', () => testValueRows(clientConnectionsFeature, values));
void describe('client connections: defaults (ingress-nginx\'s)', () => testDefaults(clientConnectionsFeature, {
  clientHeaderBufferSize: '1k', largeClientHeaderBuffers: { number: 4, size: '8k' }, clientHeaderTimeout: 60, clientBodyTimeout: 60,
  keepAlive: 75, keepAliveRequests: 1000,
  upstreamKeepaliveConnections: 320, upstreamKeepaliveTime: '1h', upstreamKeepaliveTimeout: 60, upstreamKeepaliveRequests: 10_000,
}));
