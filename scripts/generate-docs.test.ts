// The generated docs are what the registry says now, and the catalogue
// accounts for every ingress-nginx name exactly once.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildCatalogue, ownNames } from '../controller/src/model/features/catalogue.ts';
import { INGRESS_NGINX_FLAGS } from '../controller/src/model/features/ingress-nginx-flags.ts';
import { INGRESS_NGINX_ANNOTATIONS, INGRESS_NGINX_CONFIG_KEYS } from '../controller/src/model/features/ingress-nginx-names.ts';
import { generatedDocs } from './generate-docs.ts';

const ROOT = join(import.meta.dirname, '..');

for (const [file, text] of Object.entries(generatedDocs())) {
  void test(`${file} is up to date (npm run docs)`, () => {
    assert.ok(existsSync(join(ROOT, file)), `${file} is missing: run npm run docs`);
    assert.equal(readFileSync(join(ROOT, file), 'utf8'), text, `${file} is stale: run npm run docs`);
  });
}

const catalogue = buildCatalogue();
const lists = [
  { kind: 'annotations', entries: catalogue.annotations, names: INGRESS_NGINX_ANNOTATIONS.map((item) => item.name) },
  { kind: 'ConfigMap keys', entries: catalogue.configKeys, names: INGRESS_NGINX_CONFIG_KEYS.map((item) => item.name) },
  { kind: 'flags', entries: catalogue.flags, names: INGRESS_NGINX_FLAGS.map((item) => item.name) },
];
for (const { kind, entries, names } of lists) {
  void test(`catalogue: every ingress-nginx ${kind.slice(0, -1)} exactly once, with one status`, () => {
    const seen = entries.map((entry) => entry.name);
    assert.deepEqual([...seen].sort(), [...names].sort(), `the ${kind} of the catalogue are ingress-nginx's`);
    assert.equal(new Set(seen).size, seen.length, `a name listed twice among the ${kind}`);
    for (const entry of entries) assert.ok(['supported', 'different', 'ignored', 'not-supported'].includes(entry.status), entry.name);
  });
  void test(`catalogue: supported ${kind} name tests that exist; the others say what happens`, () => {
    for (const entry of entries) {
      if (entry.status === 'supported' || entry.status === 'different') {
        assert.ok(entry.proof.length > 0, `${entry.name} names no test`);
        for (const file of entry.proof) assert.ok(existsSync(join(ROOT, file)), `${entry.name}: ${file} does not exist`);
      } else {
        assert.ok(entry.note.length > 0, `${entry.name} says nothing`);
      }
    }
  });
}

void test('catalogue: protection fails closed while unsupported (the safety the issue demands)', () => {
  const statusOf = (name: string): string | undefined => catalogue.annotations.find((entry) => entry.name === name)?.status;
  for (const name of ['auth-url', 'auth-type', 'whitelist-source-range', 'denylist-source-range', 'limit-rps', 'satisfy', 'enable-modsecurity', 'auth-tls-verify-client']) {
    const entry = catalogue.annotations.find((item) => item.name === name);
    if (statusOf(name) === 'not-supported') assert.equal(entry?.failsClosed, true, `${name} must fail closed while unsupported`);
  }
  const harmlessUnsupported = catalogue.annotations.find((entry) => entry.name === 'connection-proxy-header');
  assert.equal(harmlessUnsupported?.failsClosed, false);
});

void test('catalogue: every name a feature declares is an ingress-nginx name', () => {
  assert.deepEqual(ownNames(), { annotations: [], configKeys: [] });
});
