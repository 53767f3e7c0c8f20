// POST/GET /configuration/routes inside real NGINX: the full set of route
// policies is checked strictly (400 + reason, nothing stored, the version
// and the routing as before), stored canonically (GET answers it, optional
// fields filled in), and moves the store version that /configuration/status
// reports, so "0 = nothing pushed since NGINX started" covers routes too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertCleanErrorLog, getStatus, waitAllWorkersApplied } from './test/lua-fixture.ts';
import {
  endpointOf, postRoutesRaw, pushBackends, pushRoutes, ROUTES, startCanaryNginx, tallyRoutes, type CanaryNginx,
} from './test/canary-fixture.ts';

const KEY = ROUTES.main;
/** A body with one route whose canary is `canary` (raw JSON text). */
const withCanary = (canary: string, key = JSON.stringify(KEY)): string => `{"routes":[{"key":${key},"canary":${canary}}]}`;
const canaryWith = (fields: string): string => `{"backend":"canary","weight":10${fields}}`;

void describe('POST/GET /configuration/routes', () => {
  let fixture: CanaryNginx;
  before(async () => {
    fixture = await startCanaryNginx();
    await pushBackends(fixture, { main: [endpointOf(fixture.echo[0])], canary: [endpointOf(fixture.echo[1])] });
  });
  after(async () => {
    await fixture?.stop();
  });

  const getRoutes = async (): Promise<unknown> => (await fetch(`${fixture.lua.statusUrl}/configuration/routes`)).json();

  void it('before any POST: no policies', async () => {
    assert.deepEqual(await getRoutes(), { routes: [] });
    assertCleanErrorLog(fixture.lua);
  });

  const accepted = [
    { name: 'the least: backend and weight; weightTotal defaults to 100', canary: '{"backend":"canary","weight":0}',
      stored: { backend: 'canary', weight: 0, weightTotal: 100, header: null, headerValue: null, headerPattern: null, cookie: null } },
    { name: 'explicit nulls are the same as absent', canary: '{"backend":"canary","weight":5,"weightTotal":null,"header":null,"headerValue":null,"headerPattern":null,"cookie":null}',
      stored: { backend: 'canary', weight: 5, weightTotal: 100, header: null, headerValue: null, headerPattern: null, cookie: null } },
    { name: 'everything set; values with quotes, backslashes and UTF-8 come back as sent',
      canary: JSON.stringify({ backend: 'ns-canary-80', weight: 7, weightTotal: 7, header: 'X-Canary_1', headerValue: 'a "b" \\c é', headerPattern: '^v[0-9]+(\\.[0-9]+)?$', cookie: 'canary.cookie' }),
      stored: { backend: 'ns-canary-80', weight: 7, weightTotal: 7, header: 'X-Canary_1', headerValue: 'a "b" \\c é', headerPattern: '^v[0-9]+(\\.[0-9]+)?$', cookie: 'canary.cookie' } },
  ];
  for (const row of accepted) {
    void it(`201 and stored as sent: ${row.name}`, async () => {
      const before = (await getStatus(fixture.lua.statusUrl)).version;
      const res = await postRoutesRaw(fixture, withCanary(row.canary));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.text, `version ${before + 1}\n`, 'a routes push moves the store version by one');
      assert.deepEqual(await getRoutes(), { routes: [{ key: KEY, canary: row.stored }] });
      await waitAllWorkersApplied(fixture.lua);
      assertCleanErrorLog(fixture.lua);
    });
  }

  void it('a key with a regex path (backtick for $) and UTF-8 is kept byte for byte', async () => {
    const key = '- main canary.test ns web svc /api(/|`)(.*)/café';
    const res = await postRoutesRaw(fixture, withCanary('{"backend":"canary","weight":1}', JSON.stringify(key)));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(((await getRoutes()) as { routes: { key: string }[] }).routes.map((r) => r.key), [key]);
    assertCleanErrorLog(fixture.lua);
  });

  // Lua refused keys over 1024 bytes and with them every route policy: a canary on a long path has a longer key (found by body-properties.test.ts).
  void it('the longest key the model makes (1,854 bytes) is taken', async () => {
    const name = (n: number, c: string): string => c.repeat(n);
    const backend = `${name(63, 'n')}-${name(63, 's')}-${name(63, 'p')}`;
    const key = `r ${backend} ${name(63, 'h')}.${name(63, 'h')}.${name(63, 'h')}.${name(61, 'h')} ${name(63, 'n')} ${name(253, 'i')} ${name(63, 's')} /${name(1023, 'a')}`;
    assert.equal(Buffer.byteLength(key), 1854);
    const res = await postRoutesRaw(fixture, withCanary('{"backend":"canary","weight":1}', JSON.stringify(key)));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(((await getRoutes()) as { routes: { key: string }[] }).routes.map((r) => r.key), [key]);
    assertCleanErrorLog(fixture.lua);
  });

  const long = (n: number): string => 'a'.repeat(n);
  const refused: ReadonlyArray<{ name: string; body: string; reason: RegExp }> = [
    { name: 'not JSON', body: '{"routes": [', reason: /invalid JSON/ },
    // Strict JSON like every other body (json_body.lua): cjson alone stops reading at a raw NUL.
    { name: 'a raw NUL after the document', body: '{"routes":[]}\u0000garbage', reason: /JSON|NUL|control/ },
    { name: 'nested deeper than 16', body: `{"routes":[],"x":${'['.repeat(20)}${']'.repeat(20)}}`, reason: /deep|nest|JSON/ },
    { name: 'empty body', body: '', reason: /empty|JSON object/ },
    { name: 'an array (no wrapper object)', body: '[]', reason: /JSON object/ },
    { name: 'routes missing', body: '{}', reason: /routes must be an array/ },
    { name: 'routes is an object with fields', body: '{"routes":{"a":1}}', reason: /routes must be an array/ },
    { name: 'an unknown top-level field', body: '{"routes":[],"version":3}', reason: /unknown field version/ },
    { name: 'a route that is not an object', body: '{"routes":[1]}', reason: /routes\[0\] must be an object/ },
    { name: 'an unknown route field', body: `{"routes":[{"key":${JSON.stringify(KEY)},"canary":${canaryWith('')},"split":1}]}`, reason: /unknown field split/ },
    { name: 'key missing', body: `{"routes":[{"canary":${canaryWith('')}}]}`, reason: /\.key must be/ },
    { name: 'key a number', body: withCanary(canaryWith(''), '7'), reason: /\.key must be/ },
    { name: 'key of six words', body: withCanary(canaryWith(''), '"- main canary.test ns web /"'), reason: /\.key must be/ },
    { name: 'key of eight words (a route with a canary is not a key)', body: withCanary(canaryWith(''), JSON.stringify(`${KEY} canary`)), reason: /\.key must be/ },
    { name: 'key with two spaces', body: withCanary(canaryWith(''), JSON.stringify(KEY.replace(' ', '  '))), reason: /\.key must be/ },
    { name: 'key with a TAB', body: withCanary(canaryWith(''), JSON.stringify(KEY.replace(' /', '\t/'))), reason: /\.key must be/ },
    { name: 'key with a newline', body: withCanary(canaryWith(''), JSON.stringify(`${KEY}\n`)), reason: /\.key must be/ },
    { name: 'key with a NUL', body: withCanary(canaryWith(''), JSON.stringify(`${KEY}\u0000`)), reason: /\.key must be/ },
    { name: 'key longer than 2048', body: withCanary(canaryWith(''), JSON.stringify(`${KEY}${long(2049 - KEY.length)}`)), reason: /\.key must be/ },
    { name: 'the same key twice', body: `{"routes":[{"key":${JSON.stringify(KEY)},"canary":${canaryWith('')}},{"key":${JSON.stringify(KEY)},"canary":${canaryWith('')}}]}`, reason: /appears twice/ },
    { name: 'canary missing', body: `{"routes":[{"key":${JSON.stringify(KEY)}}]}`, reason: /canary must be an object/ },
    { name: 'canary a string', body: withCanary('"canary"'), reason: /canary must be an object/ },
    { name: 'a misspelt canary field', body: withCanary('{"backend":"canary","weigth":10}'), reason: /unknown field weigth/ },
    { name: 'backend missing', body: withCanary('{"weight":10}'), reason: /backend must be/ },
    { name: 'backend with a space', body: withCanary('{"backend":"a b","weight":10}'), reason: /backend must be/ },
    { name: 'backend with a slash', body: withCanary('{"backend":"ns/svc","weight":10}'), reason: /backend must be/ },
    { name: 'backend of 254 characters', body: withCanary(`{"backend":"${long(254)}","weight":10}`), reason: /backend must be/ },
    { name: 'weight missing', body: withCanary('{"backend":"canary"}'), reason: /weight must be an integer 0\.\.100/ },
    { name: 'weight a string', body: withCanary('{"backend":"canary","weight":"10"}'), reason: /weight must be/ },
    { name: 'weight a fraction', body: withCanary('{"backend":"canary","weight":10.5}'), reason: /weight must be/ },
    { name: 'weight negative', body: withCanary('{"backend":"canary","weight":-1}'), reason: /weight must be/ },
    { name: 'weight above the default total', body: withCanary('{"backend":"canary","weight":101}'), reason: /weight must be an integer 0\.\.100/ },
    { name: 'weight above weightTotal', body: withCanary('{"backend":"canary","weight":11,"weightTotal":10}'), reason: /weight must be an integer 0\.\.10 / },
    { name: 'weight beyond any double (1e400)', body: withCanary('{"backend":"canary","weight":1e400}'), reason: /weight must be|invalid JSON/ },
    { name: 'weight in hex', body: withCanary('{"backend":"canary","weight":0x10}'), reason: /invalid JSON/ },
    { name: 'weight true', body: withCanary('{"backend":"canary","weight":true}'), reason: /weight must be/ },
    { name: 'weightTotal 0', body: withCanary('{"backend":"canary","weight":0,"weightTotal":0}'), reason: /weightTotal must be/ },
    { name: 'weightTotal above 2^31-1', body: withCanary('{"backend":"canary","weight":0,"weightTotal":2147483648}'), reason: /weightTotal must be/ },
    { name: 'weightTotal a string', body: withCanary('{"backend":"canary","weight":0,"weightTotal":"100"}'), reason: /weightTotal must be/ },
    { name: 'header empty', body: withCanary(canaryWith(',"header":""')), reason: /header and cookie/ },
    { name: 'header with a space', body: withCanary(canaryWith(',"header":"x canary"')), reason: /header and cookie/ },
    { name: 'header with a colon', body: withCanary(canaryWith(',"header":"x:canary"')), reason: /header and cookie/ },
    { name: 'header with a newline', body: withCanary(canaryWith(',"header":"x\\ncanary"')), reason: /header and cookie/ },
    { name: 'header not ASCII', body: withCanary(canaryWith(',"header":"x-canaré"')), reason: /header and cookie/ },
    { name: 'header of 257 characters', body: withCanary(canaryWith(`,"header":"${long(257)}"`)), reason: /header and cookie/ },
    { name: 'header a number', body: withCanary(canaryWith(',"header":1')), reason: /header and cookie/ },
    { name: 'cookie with "="', body: withCanary(canaryWith(',"cookie":"a=b"')), reason: /header and cookie/ },
    { name: 'cookie with ";"', body: withCanary(canaryWith(',"cookie":"a;b"')), reason: /header and cookie/ },
    { name: 'headerValue empty (null means unset)', body: withCanary(canaryWith(',"header":"x","headerValue":""')), reason: /headerValue and headerPattern/ },
    { name: 'headerValue with a newline', body: withCanary(canaryWith(',"header":"x","headerValue":"a\\r\\nb"')), reason: /headerValue and headerPattern/ },
    { name: 'headerValue of 1025 characters', body: withCanary(canaryWith(`,"header":"x","headerValue":"${long(1025)}"`)), reason: /headerValue and headerPattern/ },
    { name: 'headerValue a number', body: withCanary(canaryWith(',"header":"x","headerValue":2')), reason: /headerValue and headerPattern/ },
    { name: 'headerPattern PCRE refuses', body: withCanary(canaryWith(',"header":"x","headerPattern":"(a"')), reason: /headerPattern is not a valid PCRE pattern/ },
    { name: 'headerPattern empty', body: withCanary(canaryWith(',"header":"x","headerPattern":""')), reason: /headerValue and headerPattern/ },
    { name: 'nested 2,000 deep', body: `{"routes":${'['.repeat(2000)}${']'.repeat(2000)}}`, reason: /invalid JSON/ },
  ];
  for (const row of refused) {
    void it(`400 and the previous state kept: ${row.name}`, async () => {
      await pushRoutes(fixture, { [KEY]: { backend: 'canary', weight: 100 } });
      const stored = await getRoutes();
      const version = (await getStatus(fixture.lua.statusUrl)).version;
      const res = await postRoutesRaw(fixture, row.body);
      assert.equal(res.status, 400, res.text);
      assert.match(res.text, row.reason);
      assert.equal((await getStatus(fixture.lua.statusUrl)).version, version, 'a refused push must not move the version');
      assert.deepEqual(await getRoutes(), stored);
      assert.deepEqual(await tallyRoutes(fixture, {}, 8), { canary: 8 }, 'the previous policy still routes');
      assertCleanErrorLog(fixture.lua);
    });
  }

  void it('only GET and POST', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      assert.equal((await fetch(`${fixture.lua.statusUrl}/configuration/routes`, { method, body: '{}' })).status, 405, method);
    }
    assertCleanErrorLog(fixture.lua);
  });
});
