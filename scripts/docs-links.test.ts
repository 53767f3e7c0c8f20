// Every relative link in the README and docs/ points at a file of the
// repository (and, with a #fragment into Markdown, at one of its headings),
// and every repository path the README and docs/performance.md name in
// backticks exists: renamed or removed files cannot leave dangling names behind.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..');
const DOCS = ['README.md', 'charts/resty-ingress/README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
/** Documents whose backticked repository paths are checked too. */
const PATH_CHECKED = ['README.md', 'docs/performance.md'];
const TOP_DIRS = ['bench', 'bin', 'charts', 'controller', 'docs', 'e2e', 'lua', 'rootfs', 'scripts'];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

function withoutCode(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

function anchors(markdown: string): Set<string> {
  return new Set([...withoutCode(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => headingAnchor(match[1] ?? '')));
}

function relativeLinks(markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '').filter((target) => !/^[a-z]+:/i.test(target));
}

void describe('documentation links', () => {
  void it('GitHub heading anchors', () => {
    assert.equal(headingAnchor('0. Ask first: `resty-ingress migrate`'), '0-ask-first-resty-ingress-migrate');
    assert.equal(headingAnchor('Install with Helm'), 'install-with-helm');
  });

  for (const doc of DOCS) {
    void it(`${doc}: relative links resolve`, () => {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      for (const link of relativeLinks(text)) {
        const [path = '', fragment] = link.split('#');
        const target = path === '' ? join(ROOT, doc) : join(ROOT, dirname(doc), path);
        assert.ok(existsSync(target), `${doc} links ${link}: ${relative(ROOT, target)} does not exist`);
        if (fragment && target.endsWith('.md')) {
          assert.ok(anchors(readFileSync(target, 'utf8')).has(fragment), `${doc} links ${link}: no such heading`);
        }
      }
    });
  }

  for (const doc of PATH_CHECKED) {
    void it(`${doc}: the repository paths it names exist`, () => {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      const named = [...text.matchAll(/`([^`\s]+)`/g)].map((match) => (match[1] ?? '').replace(/[.,:;]$/, ''))
        .filter((token) => TOP_DIRS.some((dir) => token.startsWith(`${dir}/`)) && !/[<>*$…]/.test(token));
      assert.ok(named.length > 0, `${doc} names repository paths`);
      for (const path of named) assert.ok(existsSync(join(ROOT, path)), `${doc} names ${path}, which does not exist`);
    });
  }
});
