// When a reload runs `nginx -t` first: only when the change brings a snippet
// or a PEM file NGINX did not accept before, at its place.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import type { BackendTlsSecret, Location, Model, SnippetsConfig } from '../model/types.ts';
import { nginxTestNeeded, nginxTestNeededAtStart } from './nginx-test-need.ts';

const NO_SNIPPETS: SnippetsConfig = { configuration: [], server: [], auth: [], main: [], http: [], everyServer: [], everyLocation: [] };

interface Host {
  readonly host: string;
  readonly path?: string;
  /** configuration-snippet lines of its one location. */
  readonly snippet?: readonly string[];
}

function location(h: Host): Location {
  return {
    path: h.path ?? '/', match: 'prefix', route: { kind: 'not-found' }, ingress: { namespace: 'default', name: h.host },
    policy: h.snippet ? { snippets: { ...NO_SNIPPETS, configuration: h.snippet } } : {},
  };
}

function model(hosts: readonly Host[], extra: { http?: readonly string[]; backendTls?: readonly BackendTlsSecret[] } = {}): Model {
  return {
    servers: hosts.map((h) => ({ hostname: h.host, locations: [location(h)] })),
    backends: [], tls: { certificates: [], hosts: [], defaultCertificate: null }, routes: [],
    settings: { ...DEFAULT_SETTINGS, snippets: { ...NO_SNIPPETS, http: extra.http ?? [] } },
    ...(extra.backendTls ? { backendTls: extra.backendTls } : {}),
  };
}

const PEM: BackendTlsSecret = { id: 'default/ca', ca: 'PEM', cert: null, key: null, fingerprint: '0123456789abcdef' };
const SNIPPET = ['add_header X-A "a";'];
const plain = model([{ host: 'a.test' }, { host: 'b.test', snippet: SNIPPET }], { http: ['map_hash_max_size 4096;'], backendTls: [PEM] });

const rows: readonly { name: string; running: Model | null; next: Model; needed: boolean }[] = [
  { name: 'nothing confirmed yet', running: null, next: plain, needed: true },
  { name: 'the same model', running: plain, next: plain, needed: false },
  {
    name: 'a new plain host', running: plain, needed: false,
    next: model([{ host: 'a.test' }, { host: 'b.test', snippet: SNIPPET }, { host: 'c.test' }], { http: ['map_hash_max_size 4096;'], backendTls: [PEM] }),
  },
  {
    name: 'a host removed', running: plain, needed: false,
    next: model([{ host: 'b.test', snippet: SNIPPET }], { http: ['map_hash_max_size 4096;'], backendTls: [PEM] }),
  },
  {
    name: 'a new configuration-snippet', running: plain, needed: true,
    next: model([{ host: 'a.test', snippet: ['add_header X-B "b";'] }, { host: 'b.test', snippet: SNIPPET }], { http: ['map_hash_max_size 4096;'], backendTls: [PEM] }),
  },
  {
    name: 'an accepted snippet in a new place', running: plain, needed: true,
    next: model([{ host: 'a.test' }, { host: 'b.test', snippet: SNIPPET }, { host: 'b.test', path: '/other', snippet: SNIPPET }], { http: ['map_hash_max_size 4096;'], backendTls: [PEM] }),
  },
  {
    name: 'a changed http-snippet', running: plain, needed: true,
    next: model([{ host: 'a.test' }, { host: 'b.test', snippet: SNIPPET }], { http: ['map_hash_max_size 8192;'], backendTls: [PEM] }),
  },
  {
    name: 'a rotated proxy-ssl-secret', running: plain, needed: true,
    next: model([{ host: 'a.test' }, { host: 'b.test', snippet: SNIPPET }], { http: ['map_hash_max_size 4096;'], backendTls: [{ ...PEM, fingerprint: 'fedcba9876543210' }] }),
  },
  {
    name: 'a snippet and a PEM gone', running: plain, needed: false,
    next: model([{ host: 'a.test' }, { host: 'b.test' }]),
  },
];

describe('nginxTestNeeded', () => {
  for (const row of rows) {
    it(`${row.name}: ${row.needed ? 'nginx -t first' : 'the master\'s parse checks it'}`, () => {
      assert.equal(nginxTestNeeded(row.running, row.next), row.needed);
    });
  }
});

describe('nginxTestNeededAtStart', () => {
  const startRows: readonly { name: string; model: Model; needed: boolean }[] = [
    { name: 'plain hosts only', model: model([{ host: 'a.test' }, { host: 'b.test', path: '/b' }]), needed: false },
    { name: 'a configuration-snippet', model: model([{ host: 'a.test' }, { host: 'b.test', snippet: SNIPPET }]), needed: true },
    { name: 'an http-snippet', model: model([{ host: 'a.test' }], { http: ['map_hash_max_size 4096;'] }), needed: true },
    { name: 'a proxy-ssl-secret PEM', model: model([{ host: 'a.test' }], { backendTls: [PEM] }), needed: true },
  ];
  for (const row of startRows) {
    it(`${row.name}: ${row.needed ? 'nginx -t first' : 'the master\'s parse checks it'}`, () => {
      assert.equal(nginxTestNeededAtStart(row.model), row.needed);
    });
  }
});
