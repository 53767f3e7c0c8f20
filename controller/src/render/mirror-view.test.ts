// The mirror blocks render builds from the locations' policies
// (mirror-view.ts): one internal location per name and server, one upstream
// per name in the model, and the second wall: a mirror config that breaks the
// model's grammar (a model bug or a forged model) stops the render instead of
// reaching nginx.conf.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mirrorName } from '../model/features/mirror.ts';
import type { Location, MirrorConfig, MirrorTarget } from '../model/types.ts';
import { mirrorLocationsOf, mirrorUpstreamsOf } from './mirror-view.ts';
import { RenderError } from './nginx-values.ts';
import { backend, model, notFound, proxied, server } from './testdata/model-fixtures.ts';

const web = backend('shop-web');

function config(target: MirrorTarget, host: string | null = null, requestBody = true): MirrorConfig {
  return { target, host, requestBody, name: mirrorName({ target, host, requestBody }) };
}

function at(path: string, mirror: MirrorConfig): Location {
  return proxied(path, 'prefix', web.name, { policy: { mirror } });
}

const plain = config({ scheme: 'http', host: '127.0.0.1', port: 9000, path: '$request_uri' });
const secure = config({ scheme: 'https', host: 'shadow.example', port: null, path: '/copy$request_uri' }, 'copy.example:8443', false);

void describe('mirror blocks', () => {
  void it('one internal location per name, in location order, with the Host, URL and TLS name', () => {
    assert.deepEqual(mirrorLocationsOf([at('/a', plain), at('/b', secure), at('/c', plain), notFound('/d')]), [
      { name: plain.name, hostHeader: '127.0.0.1', proxyPass: `http://${plain.name}$request_uri`, sslName: null, requestBody: true },
      { name: secure.name, hostHeader: 'copy.example:8443', proxyPass: `https://${secure.name}/copy$request_uri`, sslName: 'shadow.example', requestBody: false },
    ]);
  });

  void it('one upstream per name over every server, sorted, with the scheme\'s port when the URL has none', () => {
    const site = model([server('_', [notFound('/')]), server('a.test', [at('/', secure)]), server('b.test', [at('/', plain), at('/x', secure)])], [web]);
    const want = [{ name: plain.name, server: '127.0.0.1:9000' }, { name: secure.name, server: 'shadow.example:443' }]
      .sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : 1));
    assert.deepEqual(mirrorUpstreamsOf(site), want);
  });

  void it('a mirror config without a target (mirror-host alone) renders nothing', () => {
    assert.deepEqual(mirrorLocationsOf([at('/', { target: null, host: 'a.example', requestBody: true, name: null })]), []);
  });

  const forged: { name: string; mirror: MirrorConfig }[] = [
    { name: 'a name that is no hash', mirror: { ...plain, name: '_mirror-x;' } },
    { name: 'another variable in the path', mirror: { ...plain, target: { ...plain.target!, path: '/$host' } } },
    { name: '$request_uri not at the end', mirror: { ...plain, target: { ...plain.target!, path: '$request_uri/x' } } },
    { name: 'a ; in the host', mirror: { ...plain, target: { ...plain.target!, host: 'a;b' } } },
    { name: 'a space in the Host header', mirror: { ...plain, host: 'a b' } },
    { name: 'port 0', mirror: { ...plain, target: { ...plain.target!, port: 0 } } },
    { name: 'another scheme', mirror: { ...plain, target: { ...plain.target!, scheme: 'ftp' as 'http' } } },
  ];
  for (const row of forged) {
    void it(`refuses a forged mirror: ${row.name}`, () => {
      assert.throws(() => mirrorLocationsOf([at('/', row.mirror)]), (err: unknown) => err instanceof RenderError && err.code === 'UnsafeValue');
      assert.throws(() => mirrorUpstreamsOf(model([server('a.test', [at('/', row.mirror)])], [web])), RenderError);
    });
  }
});
