import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { buildModel } from './build.ts';
import { resolvePath } from './paths.ts';
import { ann, ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import { failuresWith, findServer } from './testdata/inspect.ts';

interface PathRow {
  readonly name: string;
  readonly path: unknown;
  readonly pathType: unknown;
  readonly regex?: boolean;
  /** Expected `match path`, or null when refused. */
  readonly want: string | null;
  /** What the refusal says. */
  readonly says?: RegExp;
}

const rows: PathRow[] = [
  { name: 'Exact stays as written', path: '/foo/', pathType: 'Exact', want: 'exact /foo/' },
  { name: 'Prefix drops a trailing slash', path: '/foo/', pathType: 'Prefix', want: 'prefix /foo' },
  { name: 'Prefix drops repeated trailing slashes', path: '/foo//', pathType: 'Prefix', want: 'prefix /foo' },
  { name: 'Prefix root stays root', path: '/', pathType: 'Prefix', want: 'prefix /' },
  { name: 'absent path means root', path: undefined, pathType: 'Prefix', want: 'prefix /' },
  { name: 'absent pathType is ImplementationSpecific', path: '/a', pathType: undefined, want: 'prefix /a' },
  { name: 'ImplementationSpecific without regex is prefix', path: '/api/', pathType: 'ImplementationSpecific', want: 'prefix /api' },
  { name: 'ImplementationSpecific with regex', path: '/api/(v1|v2)/.*', pathType: 'ImplementationSpecific', regex: true, want: 'regex /api/(v1|v2)/.*' },
  { name: 'regex does not change Prefix', path: '/api', pathType: 'Prefix', regex: true, want: 'prefix /api' },
  { name: 'dots, tildes and percent are literal', path: '/.well-known/a~b%20c', pathType: 'Exact', want: 'exact /.well-known/a~b%20c' },
  { name: 'unknown pathType', path: '/a', pathType: 'Glob', want: null },
  { name: 'relative path', path: 'foo', pathType: 'Prefix', want: null },
  { name: 'not a string', path: 42, pathType: 'Prefix', want: null },
  { name: 'regex characters in a Prefix path', path: '/a.*', pathType: 'Prefix', want: null },
  { name: 'regex characters without use-regex', path: '/a(b)', pathType: 'ImplementationSpecific', want: null },
  { name: 'invalid regex', path: '/a(b', pathType: 'ImplementationSpecific', regex: true, want: null },
  { name: 'lookbehind refused', path: '/(?<=a)b', pathType: 'ImplementationSpecific', regex: true, want: null },
  { name: 'named group refused', path: '/(?<id>x)', pathType: 'ImplementationSpecific', regex: true, want: null },
  { name: 'inline flags refused', path: '/(?i)x', pathType: 'ImplementationSpecific', regex: true, want: null },
  { name: 'POSIX class refused', path: '/[[:alpha:]]', pathType: 'ImplementationSpecific', regex: true, want: null },
  { name: 'bracket opening with ] refused', path: '/[]a]', pathType: 'ImplementationSpecific', regex: true, want: null },
  { name: 'character class allowed', path: '/v[0-9]+/.*', pathType: 'ImplementationSpecific', regex: true, want: 'regex /v[0-9]+/.*' },
  { name: 'non-capturing group allowed', path: '/(?:a|b)', pathType: 'ImplementationSpecific', regex: true, want: 'regex /(?:a|b)' },
  { name: 'space', path: '/a b', pathType: 'Prefix', want: null },
  { name: 'newline', path: '/a\nb', pathType: 'Exact', want: null },
  { name: 'tab', path: '/a\tb', pathType: 'Exact', want: null },
  { name: 'semicolon', path: '/a;return 200', pathType: 'ImplementationSpecific', regex: true, want: null },
  { name: 'brace', path: '/a{2}', pathType: 'ImplementationSpecific', regex: true, want: null },
  { name: 'closing brace', path: '/a}', pathType: 'Exact', want: null },
  { name: 'double quote', path: '/a"b', pathType: 'Exact', want: null },
  { name: 'single quote', path: "/a'b", pathType: 'Exact', want: null },
  { name: 'backslash', path: '/a\\d', pathType: 'ImplementationSpecific', regex: true, want: null },
  { name: 'dollar anchor in a regex path', path: '/a$', pathType: 'ImplementationSpecific', regex: true, want: 'regex /a$' },
  { name: 'ingress-nginx rewrite example', path: '/something(/|$)(.*)', pathType: 'ImplementationSpecific', regex: true, want: 'regex /something(/|$)(.*)' },
  { name: 'dollar in a prefix path', path: '/a$', pathType: 'Prefix', want: null },
  { name: 'dollar in a non-regex ImplementationSpecific path', path: '/a$', pathType: 'ImplementationSpecific', want: null },
  { name: 'variable', path: '/$host', pathType: 'Exact', want: null },
  { name: 'hash', path: '/a#b', pathType: 'Exact', want: null },
  { name: 'non-ASCII', path: '/caf\u00e9', pathType: 'Exact', want: null },
  { name: 'too long', path: `/${'a'.repeat(1024)}`, pathType: 'Exact', want: null },
  // PCRE2 refuses groups nested deeper than 250; JavaScript has no such limit.
  { name: 'groups nested 250 deep', path: `/${'('.repeat(250)}a${')'.repeat(250)}`, pathType: 'ImplementationSpecific', regex: true,
    want: `regex /${'('.repeat(250)}a${')'.repeat(250)}` },
  { name: 'groups nested 251 deep', path: `/${'('.repeat(251)}a${')'.repeat(251)}`, pathType: 'ImplementationSpecific', regex: true, want: null },
  { name: 'non-capturing groups and lookaheads count too', path: `/${'(?:'.repeat(126)}${'(?='.repeat(125)}a${')'.repeat(251)}`,
    pathType: 'ImplementationSpecific', regex: true, want: null },
  // Super-linear backtracking in PCRE2 (regex-backtracking.ts): refused with the part to rewrite.
  { name: 'nested quantifiers (exponential)', path: '/(a+)+$', pathType: 'ImplementationSpecific', regex: true, want: null,
    says: /backtrack super-linearly .*`\(a\+\)\+`/u },
  { name: 'overlapping alternatives under a quantifier', path: '/(a|a)*$', pathType: 'ImplementationSpecific', regex: true, want: null,
    says: /backtrack|too complex/u },
  { name: 'two .* around a literal before $ (quadratic)', path: '/(.*)/foo/(.*)$', pathType: 'ImplementationSpecific', regex: true, want: null,
    says: /backtrack super-linearly/u },
  { name: 'adjacent overlapping loops (quadratic)', path: '/[a-z]+[a-z0-9]*x', pathType: 'ImplementationSpecific', regex: true, want: null,
    says: /backtrack super-linearly/u },
  { name: 'case-insensitive overlap counts', path: '/a*A*x', pathType: 'ImplementationSpecific', regex: true, want: null,
    says: /backtrack super-linearly/u },
  { name: 'the rewrite-target example is linear', path: '/api(/|$)(.*)', pathType: 'ImplementationSpecific', regex: true, want: 'regex /api(/|$)(.*)' },
  { name: 'a version segment then anything', path: '/api/v[0-9]+/(.*)', pathType: 'ImplementationSpecific', regex: true, want: 'regex /api/v[0-9]+/(.*)' },
  { name: 'one .* is linear', path: '/(.*)', pathType: 'ImplementationSpecific', regex: true, want: 'regex /(.*)' },
  { name: 'segments without overlap', path: '/([^/]+)/([^/]+)$', pathType: 'ImplementationSpecific', regex: true, want: 'regex /([^/]+)/([^/]+)$' },
  { name: 'alternatives of a file extension', path: '/static/[a-z0-9]+.(css|js|png|svg)$', pathType: 'ImplementationSpecific', regex: true,
    want: 'regex /static/[a-z0-9]+.(css|js|png|svg)$' },
  { name: 'parentheses inside a class do not nest', path: `/[${'('.repeat(300)}]a`, pathType: 'ImplementationSpecific', regex: true,
    want: `regex /[${'('.repeat(300)}]a` },
];

void describe('resolvePath', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const result = resolvePath(row.path, row.pathType, row.regex ?? false);
      const got = result.ok ? `${result.value.match} ${result.value.path}` : null;
      assert.equal(got, row.want, result.ok ? undefined : result.reason);
      if (!result.ok) assert.doesNotMatch(result.reason, /\n/);
      if (row.says && !result.ok) assert.match(result.reason, row.says);
    });
  }
});

void describe('paths in the model', () => {
  const web = service('web', [{ port: 80 }]);
  void it('Exact and Prefix of the same path are both present, exact first', () => {
    const result = buildModel(snapshot({
      ingresses: [ingress('a', { rules: [rule('h.example', path('/foo', svc('web', 80), 'Prefix'), path('/foo', svc('web', 80), 'Exact'))] })],
      services: [web],
    }), options());
    const locations = findServer(result, 'h.example')?.locations.map((location) => `${location.match} ${location.path}`);
    assert.deepEqual(locations, ['exact /foo', 'prefix /foo', 'prefix /']);
    assert.deepEqual(result.failures, []);
  });

  void it('Prefix /foo/ and /foo are the same location (second is a conflict)', () => {
    const result = buildModel(snapshot({
      ingresses: [ingress('a', { rules: [rule('h.example', path('/foo/', svc('web', 80)), path('/foo', svc('web', 80)))] })],
      services: [web],
    }), options());
    assert.equal(findServer(result, 'h.example')?.locations.filter((location) => location.path === '/foo').length, 1);
    assert.equal(failuresWith(result, 'Conflict').length, 1);
  });

  void it('a bad path drops only that path', () => {
    const result = buildModel(snapshot({
      ingresses: [ingress('a', { rules: [rule('h.example', path('/ok', svc('web', 80)), path('/bad;', svc('web', 80)))] })],
      services: [web],
    }), options());
    assert.ok(findServer(result, 'h.example')?.locations.some((location) => location.path === '/ok'));
    const [failure] = failuresWith(result, 'InvalidPath');
    assert.equal(failure?.field, 'spec.rules[0].http.paths[1].path');
  });

  void it('location order: exact, then regex and prefix by length', () => {
    const result = buildModel(snapshot({
      ingresses: [ingress('a', {
        annotations: { [ann('use-regex')]: 'true' },
        rules: [rule('h.example',
          path('/b', svc('web', 80), 'Prefix'), path('/zz', svc('web', 80), 'Exact'), path('/longer', svc('web', 80), 'Prefix'),
          path('/a', svc('web', 80), 'Exact'), path('/r.*', svc('web', 80), 'ImplementationSpecific'),
          path('/rx/.+', svc('web', 80), 'ImplementationSpecific'))],
      })],
      services: [web],
    }), options());
    const locations = findServer(result, 'h.example')?.locations.map((location) => `${location.match} ${location.path}`);
    assert.deepEqual(locations, ['exact /a', 'exact /zz', 'regex /rx/.+', 'regex /r.*', 'prefix /longer', 'prefix /b', 'prefix /']);
  });
});
