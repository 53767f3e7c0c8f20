// server-alias decided over every Ingress (ingress-nginx v1.15.1's createServers): the oldest
// Ingress of a host with aliases gives them, an alias that is a real host is dropped (the host
// wins) with a Warning, an alias two hosts claim goes to the older claim, canary Ingresses give
// none, and the locations of an aliased server read $host for the ssl-redirect check (flag h).

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1Ingress } from '@kubernetes/client-node';
import { buildModel } from './build.ts';
import { ann, ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import type { BuildResult } from './types.ts';

const web = service('web', [{ port: 80 }]);

function site(name: string, host: string, created: string, aliases?: string, extra: Record<string, string> = {}): V1Ingress {
  return ingress(name, {
    created, rules: [rule(host, path(`/${name}`, svc('web', 80)))],
    annotations: { ...(aliases === undefined ? {} : { [ann('server-alias')]: aliases }), ...extra },
  });
}

function build(...ingresses: V1Ingress[]): BuildResult {
  return buildModel(snapshot({ ingresses, services: [web] }), options());
}

function aliasesOf(result: BuildResult, host: string): readonly string[] | undefined {
  return result.model.servers.find((server) => server.hostname === host)?.aliases;
}

function warnings(result: BuildResult): string[] {
  return result.failures.filter((failure) => failure.reason.startsWith('ServerAlias')).map((failure) => `${failure.reason} ${failure.ingress?.name ?? '-'}: ${failure.message}`);
}

void describe('server-alias over the cluster', () => {
  void it('the server gets the aliases, sorted', () => {
    const result = build(site('a', 'foo.test', '2024-01-01T00:00:00Z', 'bar.test, *.bar.test'));
    assert.deepEqual(aliasesOf(result, 'foo.test'), ['*.bar.test', 'bar.test']);
    assert.deepEqual(warnings(result), []);
  });
  void it('no annotation: no aliases field', () => {
    assert.equal(aliasesOf(build(site('a', 'foo.test', '2024-01-01T00:00:00Z')), 'foo.test'), undefined);
  });
  void it('an alias that is a real host is dropped: the host wins, a Warning names it', () => {
    const result = build(site('a', 'foo.test', '2024-01-01T00:00:00Z', 'bar.test,baz.test'), site('b', 'bar.test', '2024-02-01T00:00:00Z'));
    assert.deepEqual(aliasesOf(result, 'foo.test'), ['baz.test']);
    assert.deepEqual(warnings(result), ['ServerAliasConflict a: server-alias bar.test is the host of other Ingress rules: the host wins, the alias is dropped']);
    assert.ok(result.failures.every((failure) => failure.warning === true || !failure.reason.startsWith('ServerAlias')));
  });
  void it('the alias naming its own host is dropped without a word', () => {
    const result = build(site('a', 'foo.test', '2024-01-01T00:00:00Z', 'foo.test,bar.test'));
    assert.deepEqual(aliasesOf(result, 'foo.test'), ['bar.test']);
    assert.deepEqual(warnings(result), []);
  });
  void it('the oldest Ingress of a host decides; a younger one is ignored with a Warning', () => {
    const result = build(site('young', 'foo.test', '2024-03-01T00:00:00Z', 'young.test'), site('old', 'foo.test', '2024-01-01T00:00:00Z', 'old.test'));
    assert.deepEqual(aliasesOf(result, 'foo.test'), ['old.test']);
    assert.deepEqual(warnings(result).map((line) => line.split(':')[0]), ['ServerAliasIgnored young']);
  });
  void it('an alias claimed by two hosts goes to the older claim', () => {
    const result = build(site('b', 'two.test', '2024-02-01T00:00:00Z', 'shared.test'), site('a', 'one.test', '2024-01-01T00:00:00Z', 'shared.test'));
    assert.deepEqual(aliasesOf(result, 'one.test'), ['shared.test']);
    assert.equal(aliasesOf(result, 'two.test'), undefined);
    assert.deepEqual(warnings(result).map((line) => line.split(':')[0]), ['ServerAliasConflict b']);
  });
  void it('a canary Ingress gives no aliases', () => {
    const main = site('main', 'foo.test', '2024-01-01T00:00:00Z');
    const canary = ingress('canary', {
      created: '2024-02-01T00:00:00Z', rules: [rule('foo.test', path('/main', svc('web', 80)))],
      annotations: { [ann('canary')]: 'true', [ann('canary-weight')]: '10', [ann('server-alias')]: 'c.test' },
    });
    assert.equal(aliasesOf(build(main, canary), 'foo.test'), undefined);
  });
  void it('an aliased server\'s ssl-redirect routes read $host (flag h); others keep theirs', () => {
    const result = build(site('a', 'foo.test', '2024-01-01T00:00:00Z', 'bar.test'), site('b', 'plain.test', '2024-01-01T00:00:00Z'));
    const keys = (host: string): string[] => (result.model.servers.find((server) => server.hostname === host)?.locations ?? [])
      .flatMap((location) => (location.route.kind === 'backend' ? [location.route.key.split(' ')[0] ?? ''] : []));
    assert.ok(keys('foo.test').length > 0);
    assert.ok(keys('foo.test').every((flags) => flags === 'rh'), keys('foo.test').join());
    assert.ok(keys('plain.test').every((flags) => flags === 'r'), keys('plain.test').join());
  });
});
