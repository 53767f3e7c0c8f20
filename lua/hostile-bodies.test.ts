// Hostile bodies against the configuration server inside real NGINX: every
// row is refused with 400, nothing is stored (version, backends and
// certificates as before, the old backend still routes), the reason quotes no
// raw control byte, and the error log stays clean. The rows are what a
// C-string or a lenient parser would let through: a NUL inside a JSON string
// ("10.0.0.1\u0000evil" passed inet_pton), a raw NUL after the JSON, hex
// numbers, NaN, a newline before PCRE's `$`, names, ports as strings.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import {
  assertCleanErrorLog, getStatus, singleBackendBody, startLuaSuite, stopLuaSuite, tally, waitAllWorkersApplied,
  type EchoBackend, type LuaNginx,
} from './test/lua-fixture.ts';

type Method = 'POST' | 'PATCH';
type Endpoint = '/configuration/backends' | '/configuration/certificates';
interface Row { readonly name: string; readonly body: string | Buffer; readonly reason: RegExp }

/** One backend "b" whose only endpoint is the raw JSON `endpoint`. */
const withEndpoint = (endpoint: string): string => `[{"name":"b","endpoints":[${endpoint}],"loadBalance":"round_robin"}]`;
const withAddress = (address: string): string => withEndpoint(`{"address":${address},"port":80}`);
const withPort = (port: string): string => withEndpoint(`{"address":"10.0.0.1","port":${port}}`);
const withName = (name: string): string => `[{"name":${name},"endpoints":[],"loadBalance":"ewma"}]`;

// Addresses as raw JSON values (so \u0000 reaches cjson as the escape it is).
const ADDRESSES: ReadonlyArray<[name: string, json: string]> = [
  ['NUL and garbage after an IPv4 address', '"10.0.0.1\\u0000evil"'],
  ['NUL at the end of an IPv4 address', '"10.0.0.1\\u0000"'],
  ['NUL inside an IPv6 address', '"::1\\u0000:2"'],
  ['NUL and a host name after an IPv6 address', '"fd00::1\\u0000.evil.example"'],
  ['newline after the address', '"10.0.0.1\\n"'],
  ['space before the address', '" 10.0.0.1"'],
  ['tab after the address', '"10.0.0.1\\t"'],
  ['address with a port', '"10.0.0.1:80"'],
  ['CIDR', '"10.0.0.0/8"'],
  ['leading zero (octal to some parsers)', '"010.0.0.1"'],
  ['octet over 255', '"10.0.0.256"'],
  ['three octets', '"10.0.1"'],
  ['five octets', '"10.0.0.1.5"'],
  ['hexadecimal octet', '"0x0a.0.0.1"'],
  ['integer form of an address', '"167772161"'],
  ['host name', '"web.default.svc.cluster.local"'],
  ['localhost', '"localhost"'],
  ['unix socket', '"unix:/tmp/evil.sock"'],
  ['bracketed IPv6', '"[::1]"'],
  ['IPv6 zone id', '"fe80::1%eth0"'],
  ['two "::"', '"1::2::3"'],
  ['":::"', '"1:::2"'],
  ['nine IPv6 groups', '"1:2:3:4:5:6:7:8:9"'],
  ['eight groups and "::"', '"1:2:3:4::5:6:7:8"'],
  ['five hex digits in a group', '"12345::1"'],
  ['IPv4 part not last', '"::1.2.3.4:1"'],
  ['embedded IPv4 with a leading zero', '"::ffff:10.0.0.01"'],
  ['fullwidth digits', '"１０.0.0.1"'],
  ['Arabic-Indic digits', '"١٠.٠.٠.١"'],
  ['empty string', '""'],
  ['too long', `"${'0:'.repeat(30)}1"`],
  ['a number', '167772161'],
  ['null', 'null'],
  ['an array', '["10.0.0.1"]'],
  ['an object', '{"ip":"10.0.0.1"}'],
  ['true', 'true'],
];

const PORTS: ReadonlyArray<[name: string, json: string]> = [
  ['port 0', '0'], ['port 65536', '65536'], ['port -1', '-1'], ['port -0', '-0'],
  ['port as a string', '"80"'], ['port as a string with a NUL', '"80\\u0000"'], ['fractional port', '80.5'],
  ['port 1e400 (infinite)', '1e400'], ['hexadecimal port', '0x50'], ['port NaN', 'NaN'], ['port Infinity', 'Infinity'],
  ['port true', 'true'], ['port null', 'null'], ['port in an array', '[80]'], ['port as an object', '{"n":80}'],
];

const NAMES: ReadonlyArray<[name: string, json: string]> = [
  ['name with a NUL', '"ns-web\\u0000-80"'], ['name ending in a newline', '"ns-web-80\\n"'], ['empty name', '""'],
  ['name of 254 characters', `"${'a'.repeat(254)}"`], ['name with a slash', '"ns/web"'], ['name with ..', '"../etc"'],
  ['name with a quote', '"a\\"b"'], ['non-ASCII name', '"wéb"'], ['name is a number', '123'], ['name is null', 'null'],
];

const BACKEND_ROWS: readonly Row[] = [
  ...ADDRESSES.map(([name, json]) => ({ name: `address: ${name}`, body: withAddress(json), reason: /address: must be an IPv4 or IPv6 address/ })),
  ...PORTS.map(([name, json]) => ({ name, body: withPort(json), reason: /port|invalid JSON/ })),
  { name: 'port missing', body: withEndpoint('{"address":"10.0.0.1"}'), reason: /port/ },
  ...NAMES.map(([name, json]) => ({ name, body: withName(json), reason: /name/ })),
  { name: 'loadBalance with a NUL', body: '[{"name":"b","endpoints":[],"loadBalance":"ewma\\u0000"}]', reason: /loadBalance/ },
  { name: 'loadBalance in capitals', body: '[{"name":"b","endpoints":[],"loadBalance":"EWMA"}]', reason: /loadBalance/ },
  { name: 'a raw NUL byte after the array', body: '[]\0{"name":"evil"}', reason: /NUL/ },
  { name: 'a raw NUL byte in the whitespace', body: '[ \0 ]', reason: /NUL/ },
  { name: 'a raw NUL byte inside a string', body: withAddress('"10.0.0.1\0evil"'), reason: /NUL/ },
  { name: 'invalid UTF-8 in the address', body: Buffer.concat([Buffer.from('[{"name":"b","endpoints":[{"address":"10.0.0.1'), Buffer.from([0xff, 0xfe]), Buffer.from('","port":80}],"loadBalance":"ewma"}]')]), reason: /address/ },
  { name: 'garbage after the array', body: '[] x', reason: /invalid JSON/ },
  { name: 'a byte-order mark before the array', body: '\uFEFF[]', reason: /JSON array/ },
  { name: 'nested 20 deep', body: `${'['.repeat(20)}${']'.repeat(20)}`, reason: /invalid JSON/ },
  { name: 'an endpoint that is a string', body: withEndpoint('"10.0.0.1:80"'), reason: /must be an object/ },
  { name: 'a backend that is an array', body: '[["b"]]', reason: /must be an object/ },
  { name: 'a good backend, then a bad one (nothing of it stored)',
    body: `[{"name":"c","endpoints":[{"address":"10.0.0.9","port":80}],"loadBalance":"ewma"},{"name":"d","endpoints":[{"address":"10.0.0.1\\u0000","port":80}],"loadBalance":"ewma"}]`,
    reason: /\[1\]\.endpoints\[0\]\.address/ },
];

const PATCH_ROWS: readonly Row[] = [
  { name: 'PATCH: set with a NUL in the address', body: `{"set":${withAddress('"10.0.0.1\\u0000evil"')},"remove":[]}`, reason: /address/ },
  { name: 'PATCH: set with a hexadecimal port', body: `{"set":${withPort('0x50')},"remove":[]}`, reason: /invalid JSON/ },
  { name: 'PATCH: remove a name with a NUL', body: '{"set":[],"remove":["ns-web-80\\u0000"]}', reason: /remove\[0\]/ },
  { name: 'PATCH: remove a name ending in a newline', body: '{"set":[],"remove":["ns-web-80\\n"]}', reason: /remove\[0\]/ },
  { name: 'PATCH: remove is an object', body: '{"set":[],"remove":{"0":"ns-web-80"}}', reason: /arrays/ },
  { name: 'PATCH: a raw NUL byte after the object', body: '{"set":[],"remove":[]}\0{"remove":["ns-web-80"]}', reason: /NUL/ },
  { name: 'PATCH: an array, not an object', body: '[]', reason: /JSON object/ },
];

void describe('configuration server refuses hostile bodies, storing nothing', () => {
  let fixture: LuaNginx;
  let echo: EchoBackend[];
  const certificate = createSelfSignedCertificate({ dnsNames: ['app.example.com'] });
  const pem = { cert: certificate.cert, key: certificate.key };
  const certificateBody = (id: string, host: string): string =>
    JSON.stringify({ certificates: [{ id, ...pem }], hosts: { [host]: id }, defaultCertificate: null });
  const CERTIFICATE_ROWS: readonly Row[] = [
    { name: 'certificates: a host ending in a newline', body: certificateBody('ns/app', 'app.example.com\n'), reason: /lowercase DNS name/ },
    { name: 'certificates: a host with a NUL', body: certificateBody('ns/app', 'app.example.com\0.evil'), reason: /lowercase DNS name/ },
    { name: 'certificates: an id ending in a newline', body: certificateBody('ns/app\n', 'app.example.com'), reason: /namespace\/name/ },
    { name: 'certificates: a raw NUL byte after the object', body: `${certificateBody('ns/app', 'app.example.com')}\0`, reason: /NUL/ },
  ];

  before(async () => {
    ({ fixture, echo } = await startLuaSuite(['alpha']));
  });
  after(() => stopLuaSuite(fixture, echo));

  const send = async (method: Method, path: Endpoint, body: string | Buffer): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${fixture.statusUrl}${path}`, { method, body });
    return { status: res.status, text: await res.text() };
  };
  const read = async (path: string): Promise<string> => (await fetch(`${fixture.statusUrl}${path}`)).text();
  const good = (): string => singleBackendBody(echo[0]);

  const rows: ReadonlyArray<Row & { method: Method; path: Endpoint }> = [
    ...BACKEND_ROWS.map((row) => ({ ...row, method: 'POST' as const, path: '/configuration/backends' as const })),
    ...PATCH_ROWS.map((row) => ({ ...row, method: 'PATCH' as const, path: '/configuration/backends' as const })),
    ...CERTIFICATE_ROWS.map((row) => ({ ...row, method: 'POST' as const, path: '/configuration/certificates' as const })),
  ];
  for (const row of rows) {
    void it(`400, nothing stored: ${row.name}`, async () => {
      assert.equal((await send('POST', '/configuration/backends', good())).status, 201);
      await waitAllWorkersApplied(fixture);
      const before = { status: await getStatus(fixture.statusUrl), backends: await read('/configuration/backends'), certificates: await read('/configuration/certificates') };

      const refused = await send(row.method, row.path, row.body);
      assert.equal(refused.status, 400, `${row.method} ${row.path} answered ${refused.status}: ${refused.text}`);
      assert.match(refused.text, row.reason);
      const raw = [...refused.text.replace(/\n$/, '')].filter((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
      assert.deepEqual(raw, [], 'the reason quotes a raw control byte');

      assert.deepEqual(await getStatus(fixture.statusUrl), before.status, 'a refused push must not move any version');
      assert.equal(await read('/configuration/backends'), before.backends);
      assert.equal(await read('/configuration/certificates'), before.certificates);
      assert.deepEqual(await tally(fixture, 'ns-web-80', 2), { alpha: 2 });
      assertCleanErrorLog(fixture);
    });
  }

  // The other side of strictness: what the controller's model sends must pass (model/endpoints.ts).
  const accepted: ReadonlyArray<[name: string, address: string]> = [
    ['IPv4', '10.0.0.1'], ['IPv4 with zeros', '0.0.0.0'], ['IPv6 loopback', '::1'], ['IPv6 all eight groups', '2001:db8:0:0:1:0:0:1'],
    ['IPv6 ending in "::"', '2001:db8::'], ['IPv6 with an embedded IPv4', '::ffff:10.0.0.1'], ['IPv6 in capitals', 'FD00::AB'],
    ['"::" for one group', '1:2:3:4:5:6:7::'],
  ];
  for (const [name, address] of accepted) {
    void it(`201: ${name}`, async () => {
      const posted = await send('POST', '/configuration/backends', JSON.stringify([{ name: 'b', endpoints: [{ address, port: 65535 }], loadBalance: 'ewma' }]));
      assert.equal(posted.status, 201, posted.text);
      assert.deepEqual(JSON.parse(await read('/configuration/backends')), [{ name: 'b', loadBalance: 'ewma', endpoints: [{ address, port: 65535 }] }]);
      assertCleanErrorLog(fixture);
    });
  }
});
