// ingress-nginx's host-wide regex rule (model/regex-hosts.ts): the blocks one server's
// locations are printed as, and the order NGINX tries them in. Expected rows
// follow ingress-nginx v1.15.1's buildLocation, updateServerLocations and
// its two location sorts (internal/ingress/controller).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Location, Policy } from '../model/types.ts';
import { buildLocationBlocks, type LocationContext } from './location-blocks.ts';
import { compareRegexPaths, isRegexHost } from '../model/regex-hosts.ts';
import { backend, DEFAULT_SETTINGS, proxied } from './testdata/model-fixtures.ts';

const useRegex: Policy = { rewrite: { target: null, useRegex: true } };
const rewrite: Policy = { rewrite: { target: '/$1', useRegex: false } };
const plain = { ingress: { namespace: 'default', name: 'plain' } };
const regexy = { ingress: { namespace: 'default', name: 'regexy' }, policy: useRegex };

const backends = new Map([['default-a-80', backend('default-a-80')], ['default-b-80', backend('default-b-80')]]);
const context: LocationContext = { https: false, settings: DEFAULT_SETTINGS };

/** `<modifier> <path> <backend>` of each block, in print order. */
function printed(locations: Location[]): string[] {
  return buildLocationBlocks('shop.test', locations, backends, context)
    .map((block) => `${block.modifier || '-'} ${block.path} ${block.proxy?.upstreamName ?? '404'}`);
}

const rows: { name: string; locations: Location[]; want: string[] }[] = [
  {
    name: 'no regex location: exact and prefix blocks as before',
    locations: [proxied('/health', 'exact', 'default-a-80', plain), proxied('/docs', 'prefix', 'default-a-80', plain)],
    want: ['= /health default-a-80', '= /docs default-a-80', '- /docs/ default-a-80', '- / 404'],
  },
  {
    name: 'a use-regex Ingress makes the plain Ingress\'s Exact and Prefix paths regexes too',
    locations: [
      proxied('/health', 'exact', 'default-a-80', plain),
      proxied('/api/v[0-9]+', 'regex', 'default-b-80', regexy),
      proxied('/docs', 'prefix', 'default-a-80', plain),
    ],
    // Longest first; the Prefix path is its `/` form and its exact copy; the 404 root stays last.
    want: ['~* ^/api/v[0-9]+ default-b-80', '~* ^/health default-a-80', '~* ^/docs/ default-a-80', '~* ^/docs default-a-80', '- / 404'],
  },
  {
    name: 'rewrite-target alone is enough (its path need not be a regex)',
    locations: [proxied('/old', 'regex', 'default-b-80', { policy: rewrite }), proxied('/new', 'prefix', 'default-a-80', plain)],
    // Equal lengths: greater by bytes first, as ingress-nginx's sort leaves them.
    want: ['~* ^/new/ default-a-80', '~* ^/old default-b-80', '~* ^/new default-a-80', '- / 404'],
  },
  {
    name: 'a rewrite-target equal to the path rewrites nothing: plain blocks, no rewrite',
    locations: [proxied('/old', 'prefix', 'default-b-80', { policy: { rewrite: { target: '/old', useRegex: false } } }), proxied('/new', 'exact', 'default-a-80', plain)],
    want: ['= /old default-b-80', '- /old/ default-b-80', '= /new default-a-80', '- / 404'],
  },
  {
    name: 'a Prefix path of the regex Ingress itself stays one block',
    locations: [proxied('/app', 'prefix', 'default-b-80', regexy), proxied('/', 'prefix', 'default-a-80', plain)],
    // The plain `/` becomes ^/ and catches the rest: no 404 root is added.
    want: ['~* ^/app default-b-80', '~* ^/ default-a-80'],
  },
  {
    name: 'an Exact path suppresses the exact copy of the same Prefix path',
    locations: [
      proxied('/docs', 'exact', 'default-b-80', plain),
      proxied('/x', 'regex', 'default-b-80', regexy),
      proxied('/docs', 'prefix', 'default-a-80', plain),
    ],
    want: ['~* ^/docs/ default-a-80', '~* ^/docs default-b-80', '~* ^/x default-b-80', '- / 404'],
  },
  {
    name: 'two locations printed as one regex: the first in model order serves, no duplicate block',
    locations: [proxied('/a', 'exact', 'default-a-80', plain), proxied('/a', 'regex', 'default-b-80', regexy)],
    want: ['~* ^/a default-a-80', '- / 404'],
  },
];

void describe('regex hosts: the blocks of one server', () => {
  for (const row of rows) {
    void it(row.name, () => assert.deepEqual(printed(row.locations), row.want));
  }
});

void describe('regex hosts: which servers', () => {
  const cases: { name: string; locations: Location[]; want: boolean }[] = [
    { name: 'plain paths only', locations: [proxied('/a', 'prefix', 'default-a-80', plain), proxied('/b', 'exact', 'default-a-80', plain)], want: false },
    { name: 'a use-regex Ingress without any path yet printed as regex', locations: [proxied('/a', 'exact', 'default-a-80', regexy)], want: true },
    { name: 'a rewrite-target Ingress', locations: [proxied('/a', 'prefix', 'default-a-80', { policy: rewrite })], want: true },
    { name: 'a regex location', locations: [proxied('/a', 'regex', 'default-a-80', plain)], want: true },
  ];
  for (const row of cases) {
    void it(row.name, () => assert.equal(isRegexHost(row.locations, DEFAULT_SETTINGS), row.want));
  }
});

void describe('regex hosts: ingress-nginx\'s order', () => {
  void it('sorts longer paths first, then greater by bytes first', () => {
    const sorted = ['/a', '/b/c', '/', '/ab', '/b', '/a.c', '/a/c'].sort(compareRegexPaths);
    assert.deepEqual(sorted, ['/b/c', '/a/c', '/a.c', '/ab', '/b', '/a', '/']);
  });
});
