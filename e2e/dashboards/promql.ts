// A small PromQL parser: enough of the language to read dashboard queries
// and say which metrics they select, with which label matchers, and by which
// labels they group. Grafana variables ($var, ${var}, [[var]]) are kept as
// text inside matcher values and ranges; substitute them before matching.
// Not an evaluator: the dashboard test checks selectors and groupings.

export interface Matcher {
  readonly label: string;
  readonly op: '=' | '!=' | '=~' | '!~';
  readonly value: string;
}

export type Expr =
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'selector'; readonly name: string; readonly matchers: readonly Matcher[]; readonly range: string | null }
  | { readonly kind: 'call'; readonly fn: string; readonly args: readonly Expr[] }
  | { readonly kind: 'aggregate'; readonly op: string; readonly grouping: Grouping | null; readonly args: readonly Expr[] }
  | { readonly kind: 'binary'; readonly op: string; readonly lhs: Expr; readonly rhs: Expr; readonly matching: Grouping | null }
  | { readonly kind: 'unary'; readonly op: string; readonly expr: Expr };

export interface Grouping {
  readonly mode: 'by' | 'without' | 'on' | 'ignoring';
  readonly labels: readonly string[];
}

const AGGREGATIONS = new Set(['sum', 'avg', 'count', 'min', 'max', 'group', 'stddev', 'stdvar', 'topk', 'bottomk', 'quantile', 'count_values']);
/** Binary operators by precedence, lowest first (`^` is right-associative). */
const PRECEDENCE: readonly (readonly string[])[] = [['or'], ['and', 'unless'], ['==', '!=', '<=', '<', '>=', '>'], ['+', '-'], ['*', '/', '%', 'atan2'], ['^']];

type Token = { readonly type: 'ident' | 'number' | 'string' | 'op' | 'range'; readonly text: string; readonly at: number };

const TOKEN = /\s*(?:(\[[^\]]*\])|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)|(\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)|([A-Za-z_:][\w:]*)|(==|!=|=~|!~|<=|>=|[-+*/%^(){},=<>]))/uy;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/u.test(text.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m) throw new SyntaxError(`PromQL: unexpected ${JSON.stringify(text.slice(at, at + 10))} at ${at}`);
    const [, range, str, num, ident, op] = m;
    if (range !== undefined) tokens.push({ type: 'range', text: range.slice(1, -1).trim(), at });
    else if (str !== undefined) tokens.push({ type: 'string', text: unquote(str), at });
    else if (num !== undefined) tokens.push({ type: 'number', text: num, at });
    else if (ident !== undefined) tokens.push({ type: 'ident', text: ident, at });
    else tokens.push({ type: 'op', text: op, at });
  }
  return tokens;
}

function unquote(literal: string): string {
  const body = literal.slice(1, -1);
  return literal.startsWith('`') ? body : body.replace(/\\(.)/gu, (_, c: string) => ({ n: '\n', t: '\t' })[c] ?? c);
}

class Parser {
  #at = 0;
  private readonly tokens: readonly Token[];
  private readonly source: string;

  constructor(tokens: readonly Token[], source: string) {
    this.tokens = tokens;
    this.source = source;
  }

  parse(): Expr {
    const expr = this.binary(0);
    if (this.#at < this.tokens.length) this.fail('end of query');
    return expr;
  }

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.#at + offset];
  }

  private fail(expected: string): never {
    const token = this.peek();
    throw new SyntaxError(`PromQL: expected ${expected} at ${token ? `${JSON.stringify(token.text)} (${token.at})` : 'end'} in ${this.source}`);
  }

  private accept(text: string): boolean {
    const token = this.peek();
    if (token && (token.type === 'op' || token.type === 'ident') && token.text === text) {
      this.#at++;
      return true;
    }
    return false;
  }

  private expect(text: string): void {
    if (!this.accept(text)) this.fail(JSON.stringify(text));
  }

  private binary(level: number): Expr {
    if (level === PRECEDENCE.length) return this.unary();
    let lhs = this.binary(level + 1);
    for (;;) {
      const token = this.peek();
      if (!token || !PRECEDENCE[level].includes(token.text) || token.type === 'string') return lhs;
      this.#at++;
      this.accept('bool');
      const matching = this.grouping(['on', 'ignoring']);
      // group_left / group_right, with or without labels: they do not change which labels are read.
      if (matching && this.grouping(['group_left', 'group_right']) === null && !this.accept('group_left')) this.accept('group_right');
      // `^` binds to the right: parse its right side at the same level.
      const rhs = token.text === '^' ? this.binary(level) : this.binary(level + 1);
      lhs = { kind: 'binary', op: token.text, lhs, rhs, matching };
    }
  }

  private unary(): Expr {
    const token = this.peek();
    if (token?.type === 'op' && (token.text === '-' || token.text === '+')) {
      this.#at++;
      return { kind: 'unary', op: token.text, expr: this.unary() };
    }
    return this.postfix(this.primary());
  }

  /** A range or offset after a parenthesised expression (subquery) is kept only on selectors. */
  private postfix(expr: Expr): Expr {
    if (expr.kind === 'selector' && this.peek()?.type === 'range') {
      const range = this.tokens[this.#at++].text;
      return { ...expr, range };
    }
    return expr;
  }

  /** `by (a, b)` style clause for one of `modes`, or null. */
  private grouping(modes: readonly string[]): Grouping | null {
    const token = this.peek();
    if (token?.type !== 'ident' || !modes.includes(token.text) || this.peek(1)?.text !== '(') return null;
    this.#at += 2;
    const labels: string[] = [];
    while (!this.accept(')')) {
      const label = this.peek();
      if (label?.type !== 'ident') this.fail('a label name');
      labels.push(label.text);
      this.#at++;
      if (!this.accept(',') && this.peek()?.text !== ')') this.fail('"," or ")"');
    }
    return { mode: token.text as Grouping['mode'], labels };
  }

  private args(): Expr[] {
    this.expect('(');
    const args: Expr[] = [];
    while (!this.accept(')')) {
      args.push(this.binary(0));
      if (!this.accept(',') && this.peek()?.text !== ')') this.fail('"," or ")"');
    }
    return args;
  }

  private primary(): Expr {
    const token = this.peek();
    if (!token) this.fail('an expression');
    if (token.type === 'number') {
      this.#at++;
      return { kind: 'number', value: Number(token.text) };
    }
    if (token.type === 'string') {
      this.#at++;
      return { kind: 'string', value: token.text };
    }
    if (token.type === 'op' && token.text === '(') {
      this.#at++;
      const inner = this.binary(0);
      this.expect(')');
      return inner;
    }
    if (token.type === 'op' && token.text === '{') return this.selector('');
    if (token.type !== 'ident') this.fail('an expression');
    if (AGGREGATIONS.has(token.text) && (this.peek(1)?.text === '(' || ['by', 'without'].includes(this.peek(1)?.text ?? ''))) {
      this.#at++;
      const before = this.grouping(['by', 'without']);
      const args = this.args();
      const grouping = before ?? this.grouping(['by', 'without']);
      return { kind: 'aggregate', op: token.text, grouping, args };
    }
    if (this.peek(1)?.text === '(' && this.peek(1)?.type === 'op') {
      this.#at++;
      return { kind: 'call', fn: token.text, args: this.args() };
    }
    this.#at++;
    return this.selector(token.text);
  }

  private selector(name: string): Expr {
    const matchers: Matcher[] = [];
    if (this.accept('{')) {
      while (!this.accept('}')) {
        const label = this.peek();
        const op = this.peek(1);
        const value = this.peek(2);
        if (label?.type !== 'ident' || op?.type !== 'op' || !['=', '!=', '=~', '!~'].includes(op.text) || value?.type !== 'string') this.fail('a label matcher');
        matchers.push({ label: label.text, op: op.text as Matcher['op'], value: value.text });
        this.#at += 3;
        // A trailing comma is allowed (the dashboards have some).
        if (!this.accept(',') && this.peek()?.text !== '}') this.fail('"," or "}"');
      }
    }
    const range = this.peek()?.type === 'range' ? this.tokens[this.#at++].text : null;
    // `offset` is not supported (no dashboard here uses it): parse() fails on it rather than guessing.
    return { kind: 'selector', name, matchers, range };
  }
}

export function parsePromql(text: string): Expr {
  return new Parser(tokenize(text), text).parse();
}

/** Grafana's `label_values(selector, label)` or `label_values(label)`. */
export function parseLabelValues(query: string): { readonly selector: Expr & { kind: 'selector' } | null; readonly label: string } {
  const m = /^\s*label_values\s*\((.*)\)\s*$/su.exec(query);
  if (!m) throw new SyntaxError(`not a label_values() query: ${query}`);
  const comma = m[1].lastIndexOf(',');
  const label = m[1].slice(comma + 1).trim();
  if (!/^[A-Za-z_]\w*$/u.test(label)) throw new SyntaxError(`label_values(): bad label ${JSON.stringify(label)}`);
  if (comma < 0) return { selector: null, label };
  const selector = parsePromql(m[1].slice(0, comma));
  if (selector.kind !== 'selector') throw new SyntaxError(`label_values(): not a selector: ${m[1].slice(0, comma)}`);
  return { selector, label };
}

/** Every node, parents before children. */
export function* walk(expr: Expr): Generator<Expr> {
  yield expr;
  if (expr.kind === 'call' || expr.kind === 'aggregate') for (const arg of expr.args) yield* walk(arg);
  else if (expr.kind === 'binary') { yield* walk(expr.lhs); yield* walk(expr.rhs); }
  else if (expr.kind === 'unary') yield* walk(expr.expr);
}

/** The selectors under `expr`. */
export function selectorsOf(expr: Expr): (Expr & { kind: 'selector' })[] {
  return [...walk(expr)].filter((node): node is Expr & { kind: 'selector' } => node.kind === 'selector');
}
