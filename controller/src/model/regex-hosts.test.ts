// The model's half of ingress-nginx's host-wide regex rule (regex-hosts.ts):
// which hosts it applies to, and the warning for a path that NGINX can never
// select once the host's paths are all regexes. (What render prints:
// render/regex-host.test.ts.)
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1Ingress } from '@kubernetes/client-node';
import { buildModel } from './build.ts';
import { isRegexHost } from './regex-hosts.ts';
import { ann, ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import { failuresWith } from './testdata/inspect.ts';

const services = [service('web', [{ port: 80 }]), service('api', [{ port: 80 }])];
const regexAnnotations = { [ann('use-regex')]: 'true' };

function built(ingresses: V1Ingress[]): ReturnType<typeof buildModel> {
  return buildModel(snapshot({ ingresses, services }), options());
}

const exactA = ingress('exact-a', { created: '2024-01-01T00:00:00Z', rules: [rule('h.example', path('/a', svc('web', 80), 'Exact'))] });
const regexA = ingress('regex-a', {
  created: '2024-02-01T00:00:00Z', annotations: regexAnnotations,
  rules: [rule('h.example', path('/a', svc('api', 80), 'ImplementationSpecific'), path('/b[0-9]', svc('api', 80), 'ImplementationSpecific'))],
});
const plainOther = ingress('plain-other', { rules: [rule('other.example', path('/a', svc('web', 80), 'Exact'))] });

void describe('regex hosts in the model', () => {
  void it('a use-regex Ingress makes its host a regex host, not the others', () => {
    const result = built([exactA, regexA, plainOther]);
    const regexHosts = result.model.servers.filter((server) => isRegexHost(server.locations, result.model.settings)).map((server) => server.hostname);
    assert.deepEqual(regexHosts, ['h.example']);
  });

  void it('a path printed as a regex another path of the host already has: served, with a warning naming both', () => {
    const result = built([exactA, regexA, plainOther]);
    const shadowed = failuresWith(result, 'RegexPathShadowed');
    assert.equal(shadowed.length, 1);
    assert.deepEqual(shadowed[0]?.ingress, { namespace: 'default', name: 'regex-a' });
    assert.equal(shadowed[0]?.warning, true);
    assert.match(shadowed[0]?.message ?? '', /"\/a" on host "h\.example" is never used/u);
    assert.match(shadowed[0]?.message ?? '', /default\/exact-a already has \^\/a/u);
    // Both locations stay in the model (their route keys, metrics): only NGINX's choice is affected.
    assert.equal(result.model.servers.find((server) => server.hostname === 'h.example')?.locations.filter((l) => l.path === '/a').length, 2);
  });

  void it('a rewrite-target equal to its path rewrites nothing: no regex path, no regex host (ingress-nginx\'s needsRewrite)', () => {
    const same = ingress('same', { annotations: { [ann('rewrite-target')]: '/app' }, rules: [rule('same.example', path('/app', svc('web', 80), 'ImplementationSpecific'))] });
    const neighbour = ingress('neighbour', { rules: [rule('same.example', path('/health', svc('web', 80), 'Exact'))] });
    const other = ingress('other', { annotations: { [ann('rewrite-target')]: '/' }, rules: [rule('other.example', path('/app', svc('web', 80), 'ImplementationSpecific'))] });
    const result = built([same, neighbour, other]);
    const server = (host: string) => result.model.servers.find((candidate) => candidate.hostname === host);
    assert.deepEqual(server('same.example')?.locations.map((l) => `${l.match} ${l.path}`), ['exact /health', 'prefix /app', 'prefix /']);
    assert.equal(isRegexHost(server('same.example')?.locations ?? [], result.model.settings), false);
    assert.equal(isRegexHost(server('other.example')?.locations ?? [], result.model.settings), true, 'a target other than the path rewrites');
  });

  void it('no warning without a repeat, nor on a host without regex paths', () => {
    const prefixA = ingress('prefix-a', { rules: [rule('h.example', path('/a', svc('web', 80)))] });
    const regexB = ingress('regex-b', { annotations: regexAnnotations, rules: [rule('h.example', path('/b[0-9]', svc('api', 80), 'ImplementationSpecific'))] });
    const exactTwice = ingress('exact-twice', { rules: [rule('other.example', path('/a', svc('web', 80), 'Exact'), path('/a', svc('web', 80)))] });
    assert.deepEqual(failuresWith(built([prefixA, regexB, exactTwice]), 'RegexPathShadowed'), []);
  });
});
