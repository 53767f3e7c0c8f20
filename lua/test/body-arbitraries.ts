// Test-only fast-check arbitraries for bodies of the Lua configuration
// endpoints (POST/PATCH /configuration/backends, POST /configuration/
// certificates, POST /configuration/routes): documents of the contract's
// shape whose fields are each valid or hostile (wrong types, NUL, newlines,
// unicode, numbers out of range, regular expressions PCRE refuses), then
// sometimes broken as text (a raw NUL, invalid UTF-8, a hex number, NaN,
// truncation, a byte-order mark, deep nesting), and plain garbage.
import fc from 'fast-check';
import { anyString, hostileString, regex } from '../../controller/src/model/testdata/hostile-values.ts';
import type { TlsPool } from '../../controller/src/model/testdata/tls-pool.ts';

/** Which endpoint a body goes to. */
export type Target = 'POST backends' | 'PATCH backends' | 'POST certificates' | 'POST routes';

/** A generated request body: raw bytes, and what it is (for counterexamples). */
export interface Body {
  readonly target: Target;
  readonly bytes: Buffer;
}

/** A JSON value that is not what a field wants. */
const wrongJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 65536, 2 ** 53, '', [], {}, ['a'], { a: 1 }, 'a\u0000b', 'a\nb'),
  hostileString,
  anyString,
  fc.jsonValue({ maxDepth: 2 }),
);

/** Mostly `valid`, sometimes a wrong value, sometimes absent (a body has ~10 fields: about half the bodies are valid). */
function field<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<T | unknown> {
  return fc.oneof({ weight: 30, arbitrary: valid }, { weight: 1, arbitrary: wrongJson }, { weight: 1, arbitrary: fc.constant(undefined) });
}

/** Mostly `valid`, sometimes one of `odd` (values a lenient check would take). */
function mostly<T>(valid: fc.Arbitrary<T>, ...odd: T[]): fc.Arbitrary<T> {
  return fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: fc.constantFrom(...odd) });
}

const name = mostly(fc.oneof(fc.stringMatching(/^[A-Za-z0-9._-]{1,40}$/), fc.constantFrom('a', 'default-web-80', 'x'.repeat(253))), 'x'.repeat(254), 'a b', 'a/b', 'é', '');
const address = mostly(fc.oneof(fc.ipV4(), fc.ipV6()), '10.0.0.1\u0000evil', '::1\n', 'fe80::1%eth0', '010.0.0.1', '[::1]', 'web.local');
const port = mostly(fc.integer({ min: 1, max: 65535 }), 0, 65536, -1, 80.5);
const backend = fc.record({
  name: field(name),
  endpoints: field(fc.array(field(fc.record({ address: field(address), port: field(port) })), { maxLength: 3 })),
  loadBalance: field(mostly(fc.constantFrom('round_robin', 'ewma'), 'EWMA', 'chash')),
});
const backends = fc.array(backend, { maxLength: 4 });

const id = mostly(fc.oneof(fc.stringMatching(/^[a-z0-9]{1,8}\/[a-z0-9][a-z0-9.-]{0,10}[a-z0-9]$/), fc.constant('ns/app')), 'ns/app\n', 'NS/App', 'ns', 'ns/app/x', 'ns/-a');
const host = mostly(fc.oneof(fc.domain(), fc.constant('*.example.com')), 'Example.com', 'a.example.com\n', '*', '*.', 'bücher.example', 'a..b');

function certificates(pool: TlsPool): fc.Arbitrary<unknown> {
  const pem = fc.nat({ max: pool.certificates.length - 1 }).map((i) => pool.certificates[i]);
  const garbage = fc.base64String({ maxLength: 80 }).map((body) => `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`);
  return fc.tuple(
    fc.array(fc.tuple(field(id), pem, mostly(fc.constant('ok'), 'garbage cert', 'stray key', 'cert as key', 'hostile')), { maxLength: 3 }),
    fc.array(fc.tuple(host, fc.nat({ max: 3 })), { maxLength: 3 }),
    fc.oneof({ weight: 6, arbitrary: fc.oneof(fc.constant(null), fc.nat({ max: 3 })) }, { weight: 1, arbitrary: wrongJson }),
    garbage, hostileString,
  ).map(([items, hosts, fallback, junk, hostile]) => {
    const list = items.map(([itemId, { cert, key }, how]) => ({
      id: itemId,
      cert: how === 'garbage cert' ? junk : how === 'cert as key' ? key : how === 'hostile' ? hostile : cert,
      key: how === 'stray key' ? pool.strayKey : how === 'cert as key' ? cert : key,
    }));
    const idAt = (i: number): unknown => list[i % Math.max(1, list.length)]?.id ?? 'ns/none';
    return {
      certificates: list,
      hosts: Object.fromEntries(hosts.map(([h, i]) => [h, idAt(i)])),
      defaultCertificate: typeof fallback === 'number' ? idAt(fallback) : fallback,
    };
  });
}

const word = fc.oneof(fc.stringMatching(/^[!-~]{1,12}$/), fc.constant('-'));
const key = fc.oneof(
  { weight: 12, arbitrary: fc.array(word, { minLength: 7, maxLength: 7 }).map((words) => words.join(' ')) },
  { weight: 1, arbitrary: fc.tuple(fc.array(word, { minLength: 1, maxLength: 9 }), fc.constantFrom(' ', '  ', '\t')).map(([words, separator]) => words.join(separator)) },
  { weight: 1, arbitrary: fc.constantFrom(`- a h n i s /${'x'.repeat(1020)}`, '- a h n i s /\n', '- a h n i s /\u0000') },
);
const token = mostly(fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/), '', 'a b', 'a:b', 'é', 'x'.repeat(257));
const canary = fc.record({
  backend: field(name),
  weight: field(mostly(fc.integer({ min: 0, max: 100 }), -1, 2 ** 31, 0.5)),
  weightTotal: field(mostly(fc.oneof(fc.constant(null), fc.integer({ min: 100, max: 1000 }), fc.constant(2147483647)), 0, 2147483648, 1.5)),
  header: field(fc.oneof(fc.constant(null), token)),
  headerValue: field(fc.oneof({ weight: 6, arbitrary: fc.oneof(fc.constant(null), fc.string({ minLength: 1, maxLength: 20 })) }, { weight: 1, arbitrary: anyString })),
  headerPattern: field(fc.oneof(fc.constant(null), regex)),
  cookie: field(fc.oneof(fc.constant(null), token)),
}, { requiredKeys: ['backend', 'weight'] });
const routes = fc.record({ routes: fc.array(fc.record({ key: field(key), canary: field(canary) }), { maxLength: 4 }) });

/** Breaks a serialised document the way a lenient parser would let through. */
const breakText = fc.tuple(fc.oneof({ weight: 10, arbitrary: fc.constant('none') }, { weight: 1, arbitrary: fc.constantFrom('nul', 'nul inside', 'invalid utf-8', 'hex', 'nan', 'truncate', 'bom', 'nested', 'trailing') }), fc.nat())
  .map(([how, at]) => (text: string): Buffer => {
    const i = text.length === 0 ? 0 : at % text.length;
    switch (how) {
      case 'nul': return Buffer.from(`${text}\u0000{"x":1}`);
      case 'nul inside': return Buffer.from(text.slice(0, i) + '\u0000' + text.slice(i));
      case 'invalid utf-8': return Buffer.concat([Buffer.from(text.slice(0, i)), Buffer.from([0xff, 0xc0]), Buffer.from(text.slice(i))]);
      case 'hex': return Buffer.from(text.replace(/\b(\d+)\b/u, (n) => `0x${Number(n).toString(16)}`));
      case 'nan': return Buffer.from(text.replace(/\b\d+\b/u, 'NaN'));
      case 'truncate': return Buffer.from(text.slice(0, i));
      case 'bom': return Buffer.from(`\uFEFF${text}`);
      case 'nested': return Buffer.from(`${'['.repeat(40)}${text}${']'.repeat(40)}`);
      case 'trailing': return Buffer.from(`${text} x`);
      default: return Buffer.from(text);
    }
  });

/** A body for `target`: the contract's shape with hostile fields, broken as text at times, or garbage. */
export function bodyFor(target: Target, pool: TlsPool): fc.Arbitrary<Body> {
  const documents: Record<Target, fc.Arbitrary<unknown>> = {
    'POST backends': backends,
    'PATCH backends': fc.record({ set: field(backends), remove: field(fc.array(field(name), { maxLength: 3 })) }),
    'POST certificates': certificates(pool),
    'POST routes': routes,
  };
  return fc.oneof(
    { weight: 16, arbitrary: fc.tuple(documents[target], breakText).map(([document, broken]) => broken(JSON.stringify(document) ?? '')) },
    { weight: 1, arbitrary: fc.json().map((text) => Buffer.from(text)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map((text) => Buffer.from(text)) },
  ).map((bytes) => ({ target, bytes, [fc.toStringMethod]: () => `${target} ${JSON.stringify(bytes.toString('latin1').slice(0, 600))}` }));
}
