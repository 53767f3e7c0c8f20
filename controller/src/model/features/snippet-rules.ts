// What an allowed snippet may still not do: the directives and paths behind
// ingress-nginx's snippet CVEs (CVE-2025-1974, CVE-2025-24514 and their
// class: loading code or files into NGINX, reading the controller's secrets).
// Each rule is checked on the tokens NGINX will read (snippet-tokens.ts), so
// quotes, escapes and comments hide nothing; a refusal names its rule.

import { accept, refuse, type Checked } from '../checked.ts';
import { printSnippet, readTokens, type SnippetToken } from './snippet-tokens.ts';

/** One rule: its name (in the denial) and whether a statement breaks it. */
interface SnippetRule {
  readonly name: string;
  /** The offending word, or null. `words` is one statement's words (the directive first). */
  readonly test: (words: readonly SnippetToken[]) => string | null;
}

const directive = (match: (name: string) => boolean) => (words: readonly SnippetToken[]): string | null =>
  (words[0] !== undefined && match(words[0].value) ? words[0].value : null);

/** /etc, /var/run/secrets (and /run/secrets, what /var/run points to) as a path or a path's start anywhere in a word. */
const FORBIDDEN_PATH = /(?:^|[^A-Za-z0-9_.-])(?:\/etc(?:\/|$)|(?:\/var)?\/run\/secrets(?:\/|$))/u;
/** A `..` path segment climbs out of any directory a rule could name. */
const PARENT_SEGMENT = /(?:^|\/)\.\.(?:\/|$)/u;
/** `$name` and `${name}`: a variable may be empty, so a path is also checked without them. */
const VARIABLE = /\$(?:\{[^}]*\}|[A-Za-z0-9_]+)/gu;

function pathWord(words: readonly SnippetToken[], pattern: RegExp): string | null {
  return words.find((word) => pattern.test(word.value) || pattern.test(word.value.replace(VARIABLE, '')))?.value ?? null;
}

export const SNIPPET_RULES: readonly SnippetRule[] = Object.freeze([
  { name: 'load_module is not allowed', test: directive((name) => name === 'load_module') },
  { name: '*_by_lua* directives are not allowed', test: directive((name) => name.includes('by_lua')) },
  { name: 'lua_* directives are not allowed', test: directive((name) => name.startsWith('lua_')) },
  { name: 'include is not allowed', test: directive((name) => name === 'include') },
  { name: 'paths under /etc or /var/run/secrets are not allowed', test: (words) => pathWord(words, FORBIDDEN_PATH) },
  { name: '".." path segments are not allowed', test: (words) => pathWord(words, PARENT_SEGMENT) },
]);

/** The statements of a token list: each one's words (block headers included). */
function statements(tokens: readonly SnippetToken[]): SnippetToken[][] {
  const out: SnippetToken[][] = [];
  let words: SnippetToken[] = [];
  for (const token of tokens) {
    if (token.kind === 'word') words.push(token);
    else if (words.length > 0) { out.push(words); words = []; }
  }
  // The words of a statement NGINX's parser stops in count too (a Lua block's code is no syntax of ours).
  if (words.length > 0) out.push(words);
  return out;
}

/** Shows a word in a one-line reason: JSON quoting (no raw newline or quote), cut to 60 characters. */
function shown(word: string): string {
  return JSON.stringify(word.length > 60 ? `${word.slice(0, 57)}...` : word);
}

/** A snippet as it may reach nginx.conf (its lines, rebuilt from its tokens), or the rule it breaks. An empty one is no lines. */
export function checkSnippet(text: string): Checked<readonly string[]> {
  const read = readTokens(text);
  // The rules first, on what was read: the denial names the rule even where the syntax fails after it.
  for (const words of statements(read.tokens)) {
    for (const rule of SNIPPET_RULES) {
      const found = rule.test(words);
      if (found !== null) return refuse(`${rule.name} (found ${shown(found)})`);
    }
  }
  if (read.error !== null) return refuse(`not NGINX configuration syntax: ${read.error}`);
  return accept(Object.freeze(printSnippet(read.tokens)));
}
