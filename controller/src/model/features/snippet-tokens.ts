// Snippets are the one place a user's text reaches nginx.conf as text. Before
// it does, it is read here exactly the way NGINX's own parser reads it
// (ngx_conf_read_token: words, "…" and '…' strings, backslash escapes, `#`
// comments only at the start of a word, `{`, `}`, `;`), so a check can never
// disagree with what NGINX will load: a directive hidden in a comment, a
// quote or an escape is seen as NGINX sees it. The rendered text is rebuilt
// from the tokens' own source (comments dropped, one statement a line), so
// nothing the tokenizer did not read can reach NGINX.

import { accept, refuse, type Checked } from '../checked.ts';

/** One token: a word (its source and its value once NGINX unescapes it) or a punctuation mark. */
export interface SnippetToken {
  readonly kind: 'word' | ';' | '{' | '}';
  /** The token's text as written (a quoted word with its quotes). */
  readonly raw: string;
  /** A word's value as NGINX stores it (quotes removed, \" \' \\ \t \r \n unescaped); the mark itself otherwise. */
  readonly value: string;
}

/** The longest snippet read (NGINX has no limit; the model and every reload carry it). */
export const SNIPPET_MAX_LENGTH = 16384;

const SPACE = new Set([' ', '\t', '\r', '\n']);

/** NGINX's unescaping of a word's characters (quotes already stripped). */
function unescape(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const next = text[i + 1];
    if (ch === '\\' && next !== undefined) {
      if (next === '"' || next === '\'' || next === '\\') { out += next; i++; continue; }
      if (next === 't') { out += '\t'; i++; continue; }
      if (next === 'r') { out += '\r'; i++; continue; }
      if (next === 'n') { out += '\n'; i++; continue; }
    }
    out += ch;
  }
  return out;
}

/** Reads one word starting at `start` (not a space, mark or comment); returns it and the index after it. */
function readWord(text: string, start: number): Checked<{ token: SnippetToken; end: number }> {
  const quote = text[start] === '"' || text[start] === '\'' ? text[start] : null;
  let i = quote === null ? start : start + 1;
  let variable = false;
  for (; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') { i++; variable = false; continue; }
    if (quote !== null) {
      // NGINX takes it; refused so that every rendered line starts outside a string (render/snippet-view.ts marks lines).
      if (ch === '\n' || ch === '\r') return refuse('a line break inside a quoted string');
      if (ch === quote) {
        const after = text[i + 1];
        // NGINX wants a space, `;`, `{` or `)` after a closing quote.
        if (after !== undefined && !SPACE.has(after) && after !== ';' && after !== '{' && after !== ')') {
          return refuse(`unexpected ${JSON.stringify(after)} after a quoted string`);
        }
        const raw = text.slice(start, i + 1);
        return accept({ token: { kind: 'word', raw, value: unescape(raw.slice(1, -1)) }, end: i + 1 });
      }
      continue;
    }
    // `${name}`: the braces belong to the variable, not to a block.
    if (ch === '{' && variable) continue;
    variable = ch === '$';
    if (SPACE.has(ch) || ch === ';' || ch === '{') break;
  }
  if (quote !== null) return refuse('a quoted string is not closed');
  if (i > text.length) return refuse('the snippet ends with a backslash');
  const raw = text.slice(start, i);
  return accept({ token: { kind: 'word', raw, value: unescape(raw) }, end: i });
}

/** The tokens NGINX reads from `text` and, when it would refuse the text, why (the tokens then stop there). */
export interface TokenRead {
  readonly tokens: readonly SnippetToken[];
  readonly error: string | null;
}

/** The tokens of `text` as NGINX reads them, or why NGINX would refuse it (unbalanced braces, an unterminated directive). */
export function tokenizeSnippet(text: string): Checked<readonly SnippetToken[]> {
  const read = readTokens(text);
  return read.error === null ? accept(read.tokens) : refuse(read.error);
}

/** readTokens: what tokenizeSnippet reads, with the tokens before an error (the rules still see them). */
export function readTokens(text: string): TokenRead {
  const tokens: SnippetToken[] = [];
  const fail = (error: string): TokenRead => ({ tokens, error });
  if (text.length > SNIPPET_MAX_LENGTH) return fail(`longer than ${SNIPPET_MAX_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/u.test(text)) return fail('a control character');
  let depth = 0;
  let wordsInStatement = 0;
  for (let i = 0; i < text.length;) {
    const ch = text[i];
    if (SPACE.has(ch)) { i++; continue; }
    if (ch === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (ch === ';' || ch === '{') {
      if (wordsInStatement === 0) return fail(`unexpected ${JSON.stringify(ch)}`);
      tokens.push({ kind: ch, raw: ch, value: ch });
      if (ch === '{') depth++;
      wordsInStatement = 0;
      i++;
      continue;
    }
    if (ch === '}') {
      if (wordsInStatement !== 0) return fail('unexpected "}" (a directive before it has no ";")');
      if (depth === 0) return fail('unexpected "}" (no block is open)');
      depth--;
      tokens.push({ kind: '}', raw: ch, value: ch });
      i++;
      continue;
    }
    const word = readWord(text, i);
    if (!word.ok) return fail(word.reason);
    tokens.push(word.value.token);
    wordsInStatement++;
    i = word.value.end;
  }
  if (wordsInStatement !== 0) return fail('the last directive has no ";"');
  if (depth !== 0) return fail('a block is not closed ("}" missing)');
  return { tokens, error: null };
}

/** The tokens printed back from their source, one statement a line (nested blocks indented), comments gone. */
export function printSnippet(tokens: readonly SnippetToken[]): readonly string[] {
  const lines: string[] = [];
  let words: string[] = [];
  let depth = 0;
  const pad = (): string => '    '.repeat(depth);
  for (const token of tokens) {
    if (token.kind === 'word') words.push(token.raw);
    else if (token.kind === ';') { lines.push(`${pad()}${words.join(' ')};`); words = []; }
    else if (token.kind === '{') { lines.push(`${pad()}${words.join(' ')} {`); words = []; depth++; }
    else { depth--; lines.push(`${pad()}}`); }
  }
  return lines;
}
