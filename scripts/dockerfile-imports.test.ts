import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importSpecifiers } from './dockerfile-imports.ts';

const rows: { name: string; source: string; want: string[] }[] = [
  { name: 'named, default and bare imports', source: "import { a } from './a.ts';\nimport b from 'pkg';\nimport 'side';", want: ['./a.ts', 'pkg', 'side'] },
  { name: 'dynamic import and re-export', source: "const m = await import('./m.ts');\nexport { x } from './x.ts';", want: ['./m.ts', './x.ts'] },
  { name: 'type-only imports vanish', source: "import type { T } from './t.ts';\nexport type { U } from './u.ts';", want: [] },
  { name: 'comments quoting imports', source: "// import x from 'no'\n/* from 'nope' */", want: [] },
  { name: 'a string ending in "from" is no import', source: "const names = [{ name: 'proxy-redirect-from', scope: 'Location' }];", want: [] },
  { name: 'prose ending in "from" before a string concatenation is no import', source: "const doc = 'takes the address from '\n    + 'the header';", want: [] },
  { name: 'a property called import is no import', source: "const o = { x: cfg.import('y') };", want: [] },
];
for (const row of rows) {
  void test(`importSpecifiers: ${row.name}`, () => {
    assert.deepEqual(importSpecifiers(row.source), row.want);
  });
}
