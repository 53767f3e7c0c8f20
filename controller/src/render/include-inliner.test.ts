// The includes compiled into their includer (include-inliner.ts, inlining-loader.ts) render what
// nunjucks' own run-time include renders: each row is a set of templates
// rendered by both, with the output nunjucks gives spelled out (the scoping
// each row is about), and the number of run-time includes left (0 where
// everything was inlined: the proof the inlined path was the one taken).

import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import nunjucks from 'nunjucks';
import { createInliningLoader } from './inlining-loader.ts';

interface Case {
  readonly name: string;
  /** name → source; `main.njk` is rendered. */
  readonly templates: Readonly<Record<string, string>>;
  readonly context?: Readonly<Record<string, unknown>>;
  readonly dynamicIncludes?: readonly string[];
  /** What nunjucks renders (null: it throws). */
  readonly expected: string | null;
  /** getTemplate calls the inlined render still makes besides the one for main.njk. */
  readonly runtimeIncludes: number;
}

const OPTIONS = { autoescape: false, throwOnUndefined: true, trimBlocks: true, lstripBlocks: true };

const CASES: readonly Case[] = [
  {
    name: 'a literal include',
    templates: { 'main.njk': 'A{% include "b.njk" %}A', 'b.njk': '[b]' },
    expected: 'A[b]A',
    runtimeIncludes: 0,
  },
  {
    name: 'a {% set %} in the included template stays in it, even over a name the includer set',
    templates: { 'main.njk': '{% set x = "outer" %}{% include "inc.njk" %}{{ x }}', 'inc.njk': '{% set x = "inner" %}{{ x }}|' },
    expected: 'inner|outer',
    runtimeIncludes: 0,
  },
  {
    name: 'the for-loop variable and loop.* are visible to the included template',
    templates: { 'main.njk': '{% for item in items %}{% include "item.njk" %}{% endfor %}', 'item.njk': '<{{ item }}:{{ loop.index }}{% if loop.last %}!{% endif %}>' },
    context: { items: ['a', 'b'] },
    expected: '<a:1><b:2!>',
    runtimeIncludes: 0,
  },
  {
    name: 'every loop.* field, in nested loops, the outer loop\'s back after the inner one (bindings written without Frame.set)',
    templates: {
      'main.njk': '{% for a in [1, 2] %}{% for b in "xyz" | list %}{% include "fields.njk" %}{% endfor %}{{ loop.index }};{% endfor %}',
      'fields.njk': '{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }} ',
    },
    expected: '1032truefalse3 2121falsefalse3 3210falsetrue3 1;1032truefalse3 2121falsefalse3 3210falsetrue3 2;',
    runtimeIncludes: 0,
  },
  {
    name: 'a {% set %} in an included template in a loop starts afresh in each iteration',
    templates: {
      'main.njk': '{% for item in items %}{% include "item.njk" %}{% endfor %}',
      'item.njk': '{% if item == "a" %}{% set seen = "yes" %}{% endif %}{{ item }}={{ seen if seen else "no" }};',
    },
    context: { items: ['a', 'b'] },
    expected: 'a=yes;b=no;',
    runtimeIncludes: 0,
  },
  {
    name: 'the included template changes a list the includer set (how partials push their Lua calls)',
    templates: {
      'main.njk': '{% set calls = [] %}{% include "push.njk" %}{% include "push.njk" %}{{ calls | join(",") }}',
      'push.njk': '{% set step %}call({{ calls.length }}){% endset %}{% set pushed = calls.push(step) %}',
    },
    expected: 'call(0),call(1)',
    runtimeIncludes: 0,
  },
  {
    name: 'nested includes read the sets of every level above',
    templates: { 'main.njk': '{% set p = 1 %}{% include "b.njk" %}', 'b.njk': '{% set q = 2 %}{% include "c.njk" %}', 'c.njk': '{{ p }}{{ q }}' },
    expected: '12',
    runtimeIncludes: 0,
  },
  {
    name: 'a {% set %} inside a for loop of an included template writes the includer\'s name (nunjucks\' own scoping, kept)',
    templates: { 'main.njk': '{% set n = "outer" %}{% include "loop-set.njk" %}{{ n }}', 'loop-set.njk': '{% for i in [1] %}{% set n = "from-loop" %}{% endfor %}' },
    expected: 'from-loop',
    runtimeIncludes: 0,
  },
  {
    name: 'computed names (feature partials) in a loop, each partial setting the same names',
    templates: {
      'main.njk': '{% for f in features %}{% include f.template %}{% endfor %}{{ own }}',
      'p1.njk': '{% set own = f.v %}p1={{ own }};',
      'p2.njk': '{% set own = f.v * 10 %}p2={{ own }};',
    },
    context: { own: 'main', features: [{ template: 'p1.njk', v: 1 }, { template: 'p2.njk', v: 2 }, { template: 'p1.njk', v: 3 }] },
    dynamicIncludes: ['p1.njk', 'p2.njk'],
    expected: 'p1=1;p2=20;p1=3;main',
    runtimeIncludes: 0,
  },
  {
    name: 'a computed name outside dynamicIncludes is a run-time include',
    templates: { 'main.njk': '{% for f in features %}{% include f.template %}{% endfor %}', 'p1.njk': '1', 'p3.njk': '3' },
    context: { features: [{ template: 'p1.njk' }, { template: 'p3.njk' }] },
    dynamicIncludes: ['p1.njk'],
    expected: '13',
    runtimeIncludes: 1,
  },
  {
    name: 'a template with a macro stays a run-time include (its macro reads the context its own sets go to)',
    templates: {
      'main.njk': '{% for v in values %}{% include "macro.njk" %}{% endfor %}',
      'macro.njk': '{% set c = v %}{% macro show(x) %}{{ x }}{{ c }}{% endmacro %}{{ show("-") }}',
    },
    context: { values: ['a', 'b'] },
    expected: '-a-b',
    runtimeIncludes: 2,
  },
  {
    name: 'a template that extends another, with super() in a block (the transformer still runs where it changes the tree)',
    templates: { 'main.njk': '{% extends "base.njk" %}{% block b %}child {{ super() }}{% endblock %}', 'base.njk': '[{% block b %}base{% endblock %}]' },
    expected: '[child base]',
    runtimeIncludes: 1,
  },
  {
    name: 'a template including itself (its function calls itself)',
    templates: { 'main.njk': '{% set depth = 0 %}{% include "rec.njk" %}', 'rec.njk': '{{ depth }}{% if depth < 3 %}{% set depth = depth + 1 %}{% include "rec.njk" %}{% endif %}' },
    expected: '0123',
    runtimeIncludes: 0,
  },
  {
    name: 'whitespace control in the included template: block tags on lines of their own leave none, `{%-` strips before',
    templates: {
      'main.njk': 'server {\n{% for l in locations %}\n{% include "loc.njk" %}\n{% endfor %}\n}\n',
      'loc.njk': '    location {{ l }} {\n{% if l == "/" %}\n        return 404;\n{% endif %}\n    {%- if true %} #{% endif %}\n\n    }\n',
    },
    context: { locations: ['/', '/a'] },
    expected: 'server {\n    location / {\n        return 404;\n #\n    }\n    location /a {\n #\n    }\n}\n',
    runtimeIncludes: 0,
  },
  {
    name: 'a missing template in a branch not taken is never looked for; `ignore missing` prints nothing',
    templates: { 'main.njk': '{% if false %}{% include "missing.njk" %}{% endif %}[{% include "missing.njk" ignore missing %}]' },
    expected: '[]',
    runtimeIncludes: 1,
  },
  {
    name: 'a missing template that is reached fails as in nunjucks',
    templates: { 'main.njk': '{% include "missing.njk" %}' },
    expected: null,
    runtimeIncludes: 1,
  },
  {
    name: 'an undefined value printed in an included template throws (throwOnUndefined)',
    templates: { 'main.njk': '{% include "inc.njk" %}', 'inc.njk': '{{ nothing }}' },
    expected: null,
    runtimeIncludes: 0,
  },
];

/** What `render` gives, or null when it throws. */
function outcome(render: () => string): string | null {
  try {
    return render();
  } catch {
    return null;
  }
}

describe('includes compiled inline render as nunjucks includes', () => {
  const root = mkdtempSync(join(tmpdir(), 'resty-include-inliner-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  CASES.forEach((row, index) => {
    it(row.name, () => {
      const dir = join(root, String(index));
      for (const [name, source] of Object.entries(row.templates)) {
        mkdirSync(dirname(join(dir, name)), { recursive: true });
        writeFileSync(join(dir, name), source);
      }
      const context = row.context ?? {};
      const reference = new nunjucks.Environment(new nunjucks.FileSystemLoader(dir), OPTIONS);
      const loader = createInliningLoader(dir, {
        parse: { trimBlocks: true, lstripBlocks: true }, throwOnUndefined: true, dynamicIncludes: row.dynamicIncludes ?? [],
      });
      const inlined = new nunjucks.Environment(loader, OPTIONS);
      let lookups = 0;
      const getTemplate = inlined.getTemplate.bind(inlined) as (...args: unknown[]) => unknown;
      (inlined as unknown as { getTemplate: (...args: unknown[]) => unknown }).getTemplate = (...args) => {
        lookups += 1;
        return getTemplate(...args);
      };

      assert.equal(outcome(() => reference.render('main.njk', context)), row.expected, 'nunjucks itself');
      assert.equal(outcome(() => inlined.render('main.njk', context)), row.expected, 'inlined');
      assert.equal(lookups - 1, row.runtimeIncludes, 'run-time includes left');
    });
  });
});
