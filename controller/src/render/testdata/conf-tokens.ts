// Test-only: reads a rendered nginx.conf into tokens the way NGINX's own
// reader does (ngx_conf_read_token: words end at whitespace, `;` or `{`; a
// token that starts with a quote runs to the matching unescaped quote; `#`
// at the start of a token comments out the rest of the line), and
// `*_by_lua_block { ... }` bodies the way ngx_lua reads them (Lua strings,
// nested braces). The property tests use it to find which token, of which
// directive, each occurrence of a planted marker landed in.

/** One token with where it sits in the conf; `quote` is the quote it was written in, if any. */
export interface ConfToken {
  readonly text: string;
  readonly quote: '"' | '\'' | null;
  /** The raw span in the conf, quotes included. */
  readonly start: number;
  readonly end: number;
  /** The directive of the statement the token belongs to (its first token's text). */
  readonly directive: string;
  /** Its place in the statement: 0 is the directive itself. */
  readonly index: number;
  /** A string literal inside a Lua block (the block's directive is `directive`). */
  readonly lua: boolean;
  /** The directive of the block the statement is in (`map`, `location`, `if`…), "" at the top. */
  readonly block: string;
}

const SPACE = new Set([' ', '\t', '\r', '\n']);

/** Reads a quoted token starting at `at` (the quote); returns its end (after the closing quote) and its text. */
function readQuoted(conf: string, at: number, quote: string): { end: number; text: string } {
  let text = '';
  for (let i = at + 1; i < conf.length; i++) {
    const ch = conf[i];
    if (ch === '\\' && i + 1 < conf.length) {
      text += conf[i + 1];
      i++;
    } else if (ch === quote) {
      return { end: i + 1, text };
    } else {
      text += ch;
    }
  }
  throw new Error(`unterminated ${quote} at offset ${at}`);
}

/** Reads a Lua block body from `at` (just after its `{`) to its matching `}`; returns the Lua string literals and the end. */
function readLuaBlock(conf: string, at: number, directive: string, index: number): { end: number; strings: ConfToken[] } {
  const strings: ConfToken[] = [];
  let depth = 1;
  for (let i = at; i < conf.length; i++) {
    const ch = conf[i];
    if (ch === '"' || ch === '\'') {
      const read = readQuoted(conf, i, ch);
      strings.push({ text: read.text, quote: ch, start: i, end: read.end, directive, index, lua: true, block: directive });
      i = read.end - 1;
    } else if (ch === '{') {
      depth++;
    } else if (ch === '}' && --depth === 0) {
      return { end: i + 1, strings };
    }
  }
  throw new Error(`unterminated Lua block of ${directive}`);
}

/** Every token of `conf` in order; throws where NGINX's reader would fail (unterminated quote, no space after one). */
export function tokenizeConf(conf: string): ConfToken[] {
  const tokens: ConfToken[] = [];
  let statement: string[] = [];
  const blocks: string[] = [];
  const push = (text: string, quote: ConfToken['quote'], start: number, end: number): void => {
    tokens.push({ text, quote, start, end, directive: statement[0] ?? text, index: statement.length, lua: false, block: blocks.at(-1) ?? '' });
    statement.push(text);
  };
  let i = 0;
  while (i < conf.length) {
    const ch = conf[i];
    if (SPACE.has(ch)) {
      i++;
    } else if (ch === '#') {
      const eol = conf.indexOf('\n', i);
      i = eol < 0 ? conf.length : eol + 1;
    } else if (ch === ';' || ch === '}') {
      if (ch === '}') blocks.pop();
      statement = [];
      i++;
    } else if (ch === '{') {
      const directive = statement[0] ?? '';
      if (directive.endsWith('_by_lua_block')) {
        const block = readLuaBlock(conf, i + 1, directive, statement.length);
        tokens.push(...block.strings);
        i = block.end;
      } else {
        blocks.push(directive);
        i++;
      }
      statement = [];
    } else if (ch === '"' || ch === '\'') {
      const read = readQuoted(conf, i, ch);
      const next = conf[read.end];
      if (next !== undefined && !SPACE.has(next) && next !== ';' && next !== '{' && next !== ')') {
        throw new Error(`NGINX wants a space after the quoted token at offset ${i}, found ${JSON.stringify(next)}`);
      }
      push(read.text, ch, i, read.end);
      i = read.end;
    } else {
      let end = i;
      // A backslash keeps the next character in the word; quotes and `}` inside a word are plain characters.
      while (end < conf.length && !SPACE.has(conf[end]) && conf[end] !== ';' && conf[end] !== '{') end += conf[end] === '\\' ? 2 : 1;
      push(conf.slice(i, end), null, i, end);
      i = end;
    }
  }
  return tokens;
}

/** The token whose span holds offset `at`, or null (whitespace, a comment, `;{}`). */
export function tokenAt(tokens: readonly ConfToken[], at: number): ConfToken | null {
  let found: ConfToken | null = null;
  for (const token of tokens) {
    if (token.start > at) break;
    // A Lua string inside a block comes after the block's directive token; the innermost span wins.
    if (at < token.end) found = token;
  }
  return found;
}
