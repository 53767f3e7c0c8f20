// isFresh: when the bench must bundle dist/ again before it runs the
// controller as shipped (a missing or tsc-made build, or any source newer).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { isFresh } from './shipped-build.ts';

const OLD = new Date('2026-01-01T00:00:00Z');
const NEW = new Date('2026-01-02T00:00:00Z');

function write(root: string, path: string, time: Date): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), 'x');
  utimesSync(join(root, path), time, time);
}

const rows: { name: string; files: { path: string; time: Date }[]; fresh: boolean }[] = [
  { name: 'no build', files: [{ path: 'src/a.ts', time: OLD }], fresh: false },
  { name: 'a launcher without chunks (tsc\'s layout)', files: [{ path: 'src/a.ts', time: OLD }, { path: 'dist/bin/x.js', time: NEW }], fresh: false },
  { name: 'a source newer than the bundle', files: [{ path: 'src/deep/a.ts', time: NEW }, { path: 'dist/bin/x.js', time: OLD }, { path: 'dist/chunks/c.js', time: OLD }], fresh: false },
  { name: 'a bundle newer than every source', files: [{ path: 'src/deep/a.ts', time: OLD }, { path: 'pkg.json', time: OLD }, { path: 'dist/bin/x.js', time: NEW }, { path: 'dist/chunks/c.js', time: NEW }], fresh: true },
];

for (const row of rows) {
  test(`isFresh: ${row.name}`, () => {
    const root = mkdtempSync(join(tmpdir(), 'shipped-build-'));
    try {
      for (const file of row.files) write(root, file.path, file.time);
      // Directories' own mtimes are their creation's (now): keep them old too.
      for (const dir of ['src', 'src/deep']) try { utimesSync(join(root, dir), OLD, OLD); } catch { /* absent in this row */ }
      assert.equal(isFresh(root, join(root, 'dist'), 'bin/x.js', ['src', 'pkg.json']), row.fresh);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}
