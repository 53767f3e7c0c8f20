import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  RenderError,
  formatNginxInteger,
  quoteLuaSearchPath,
  quoteNginxLiteral,
  quoteNginxString,
} from './nginx-values.ts';
import { createTemplateEnvironment } from './template-environment.ts';
import { TEMPLATE_DIR } from './testdata/model-fixtures.ts';

function assertUnsafe(run: () => unknown): void {
  assert.throws(run, (error: unknown) => error instanceof RenderError && error.code === 'UnsafeValue');
}

void describe('quoteNginxString', () => {
  const accepted: [name: string, value: string, quoted: string][] = [
    ['path', '/app/v1', '"/app/v1"'],
    ['wildcard host', '*.example.com', '"*.example.com"'],
    ['rewrite capture', '/$1', '"/$1"'],
    ['regex with groups', '/re(/|$)(.*)', '"/re(/|$)(.*)"'],
    ['single quote', "it's", `"it's"`],
  ];
  for (const [name, value, quoted] of accepted) {
    void it(`accepts ${name}`, () => assert.equal(quoteNginxString(value), quoted));
  }

  const rejected: [name: string, value: unknown][] = [
    ['newline', '/a\nproxy_pass http://evil'],
    ['carriage return', '/a\r'],
    ['tab', '/a\tb'],
    ['NUL', '/a\u0000'],
    ['double quote', '/a"b'],
    ['backslash', '/a\\"'],
    ['semicolon', '/a; return 200'],
    ['open brace', '/a{'],
    ['close brace', '/a}'],
    ['DEL', '/a\u007f'],
    ['empty string', ''],
    ['number', 42],
    ['undefined', undefined],
    ['null', null],
  ];
  for (const [name, value] of rejected) {
    void it(`rejects ${name}`, () => assertUnsafe(() => quoteNginxString(value)));
  }

  void it('names the rejected character without echoing control characters raw', () => {
    assert.throws(
      () => quoteNginxString('/a\nb'),
      (error: unknown) => error instanceof Error && error.message.includes('"\\n"') && !error.message.includes('\n'),
    );
  });
});

void describe('quoteNginxLiteral', () => {
  void it('accepts a backend name', () => assert.equal(quoteNginxLiteral('default-web-80'), '"default-web-80"'));
  void it('rejects $ (NGINX would interpolate it)', () => assertUnsafe(() => quoteNginxLiteral('web-$host')));
  void it('rejects what quoteNginxString rejects', () => assertUnsafe(() => quoteNginxLiteral('a;b')));
});

void describe('formatNginxInteger', () => {
  const accepted: [name: string, value: number, text: string][] = [
    ['zero', 0, '0'],
    ['timeout', 60, '60'],
    ['large', 2 ** 40, '1099511627776'],
  ];
  for (const [name, value, text] of accepted) {
    void it(`accepts ${name}`, () => assert.equal(formatNginxInteger(value), text));
  }
  const rejected: [name: string, value: unknown][] = [
    ['fraction', 1.5],
    ['negative', -1],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['numeric string', '60'],
    ['string with directive', '60; evil'],
  ];
  for (const [name, value] of rejected) {
    void it(`rejects ${name}`, () => assertUnsafe(() => formatNginxInteger(value)));
  }
});

void describe('quoteLuaSearchPath', () => {
  void it('allows ; as the separator', () => {
    assert.equal(quoteLuaSearchPath('/a/?.lua;/b/?.lua;;'), '"/a/?.lua;/b/?.lua;;"');
  });
  void it('rejects a quote inside an entry', () => assertUnsafe(() => quoteLuaSearchPath('/a/?.lua";evil')));
  void it('rejects a path of separators only', () => assertUnsafe(() => quoteLuaSearchPath(';;')));
});

void describe('template filters', () => {
  const cases: [name: string, template: string, value: unknown][] = [
    ['q', '{{ v | q }}', 'a;b'],
    ['qlit', '{{ v | qlit }}', '$x'],
    ['num', '{{ v | num }}', 0.5],
    ['qluapath', '{{ v | qluapath }}', '/a\n;;'],
  ];
  for (const [name, template, value] of cases) {
    void it(`${name} throws inside a template and keeps the RenderError`, () => {
      const templates = createTemplateEnvironment(TEMPLATE_DIR);
      assert.throws(() => templates.env.renderString(template, { v: value }));
      const kept = templates.takeFilterError();
      assert.ok(kept instanceof RenderError && kept.code === 'UnsafeValue', `kept: ${String(kept)}`);
      assert.equal(templates.takeFilterError(), null, 'taking the error clears it');
    });
  }
  void it('throws on an undefined variable instead of printing nothing', () => {
    const templates = createTemplateEnvironment(TEMPLATE_DIR);
    assert.throws(() => templates.env.renderString('listen {{ missing }};', {}));
  });
});
