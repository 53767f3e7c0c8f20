// A nunjucks compiler that compiles `{% include %}` into the including
// template's own code instead of a run-time call. The templates stay split
// per NGINX context in the source; only the compiled code is one piece.
//
// Why: a run-time include costs a getTemplate, an a-sync-waterfall of three
// callbacks, a new Context (a copy of every context variable) and a Template
// render; location.njk includes one partial per feature of every location, so
// at 10,000 Ingresses that machinery was most of the first render's time.
//
// Same output, by construction: an inlined template's code is what nunjucks
// compiles for it on its own (a fresh compile-time frame, so each name it
// does not set itself is looked up at run time, as in an include), run in
// the frame an include gives it, `frame.push(true)`: it reads every variable
// the includer sees, and its `{% set %}`s stay in that write-isolated frame.
// Two differences, both unobservable here: the frame is not `topLevel`, so a
// set does not also land in the context (an include's context is its own
// copy, thrown away after; only a macro reads the context, see below), and
// the inlined code shares the includer's context instead of a copy of it.
// Not inlined (a run-time include, as before): a template that defines a
// macro, imports, extends or has blocks (they depend on the context or on
// template identity), a template already being inlined (recursion), a name
// no file has (nunjucks' own error, at run time as before), and a computed
// name outside `dynamicIncludes`.

import { createRequire } from 'node:module';
import nunjucks from 'nunjucks';

/** The parts of nunjucks' undocumented compiler API used here (nunjucks 3.2.x src/compiler.js, nodes.js). */
interface TemplateNode {
  readonly typename: string;
  readonly children: readonly TemplateNode[];
  findAll(type: unknown): TemplateNode[];
}
interface IncludeNode extends TemplateNode {
  readonly template: TemplateNode & { readonly value?: unknown };
}
interface CompilerBase {
  compile(node: TemplateNode, frame?: unknown): void;
  compileInclude(node: IncludeNode, frame: unknown): void;
  getCode(): string;
  _emit(code: string): void;
  _emitLine(code: string): void;
  _tmpid(): string;
  _compileExpression(node: TemplateNode, frame: unknown): void;
  _compileChildren(node: TemplateNode, frame: unknown): void;
  _withScopedSyntax(body: () => void): void;
  _emitLoopBindings(node: TemplateNode, arr: string, i: string, len: string): void;
}
interface NunjucksInternals {
  readonly compiler: { readonly Compiler: new (name: string, throwOnUndefined: boolean) => CompilerBase };
  readonly parser: { parse(src: string, extensions: readonly unknown[], options: ParseOptions): TemplateNode };
  readonly nodes: Readonly<Record<'Literal' | 'Macro' | 'Import' | 'FromImport' | 'Extends' | 'Block', unknown>>;
  readonly runtime: { readonly Frame: new () => unknown };
}
const internals = nunjucks as unknown as NunjucksInternals;
/** What nunjucks' own compile() runs between parse and compile (lifts async filters and super(); none here, kept for parity). */
const transformer = createRequire(import.meta.url)('nunjucks/src/transformer.js') as {
  transform(root: TemplateNode, asyncFilters: readonly string[]): TemplateNode;
};

/** `source` parsed as nunjucks' compile() parses it (the Environment has no extensions and no async filters). */
function parseTemplate(source: string, options: ParseOptions): TemplateNode {
  return transformer.transform(internals.parser.parse(source, [], options), []);
}

/** The lexer options that change what a template's text means (the Environment's). */
export interface ParseOptions {
  readonly trimBlocks: boolean;
  readonly lstripBlocks: boolean;
}

export interface InlineOptions {
  readonly parse: ParseOptions;
  readonly throwOnUndefined: boolean;
  /** Every name a computed `{% include expr %}` is expected to give: each is inlined behind a switch; any other name is a run-time include. */
  readonly dynamicIncludes: readonly string[];
  /** A template's source, or null when there is no such template. */
  readSource(name: string): string | null;
}

/** Parses and remembers templates for one set of options; null for a template not inlined. */
export class InlineSources {
  readonly options: InlineOptions;
  private readonly parsed = new Map<string, TemplateNode | null>();

  constructor(options: InlineOptions) {
    this.options = options;
  }

  /** The parsed template when it may be inlined, else null. */
  inlinable(name: string): TemplateNode | null {
    const cached = this.parsed.get(name);
    if (cached !== undefined) return cached;
    const source = this.options.readSource(name);
    const root = source === null ? null : parseTemplate(source, this.options.parse);
    const { Macro, Import, FromImport, Extends, Block } = internals.nodes;
    const bound = root !== null && [Macro, Import, FromImport, Extends, Block].some((type) => root.findAll(type).length > 0);
    const result = bound ? null : root;
    this.parsed.set(name, result);
    return result;
  }
}

class InliningCompiler extends internals.compiler.Compiler {
  private readonly sources: InlineSources;
  /** The templates whose code is being emitted, outermost first. */
  private readonly inlining: string[];

  constructor(name: string, sources: InlineSources) {
    super(name, sources.options.throwOnUndefined);
    this.sources = sources;
    this.inlining = [name];
  }

  /**
   * The `loop.*` of each iteration, written as Frame.set("loop.index", …) writes them (the
   * frame's `loop` object, made when missing, then its fields in nunjucks' order) without seven
   * set() calls that each split the dotted name: at 10k servers those were a tenth of the
   * templates' own time.
   */
  override _emitLoopBindings(_node: TemplateNode, arr: string, i: string, len: string): void {
    const loop = this._tmpid();
    this._emitLine(`var ${loop} = frame.variables["loop"] || (frame.variables["loop"] = {});`);
    this._emitLine(`${loop}.index = ${i} + 1; ${loop}.index0 = ${i}; ${loop}.revindex = ${len} - ${i}; ${loop}.revindex0 = ${len} - ${i} - 1;`);
    this._emitLine(`${loop}.first = ${i} === 0; ${loop}.last = ${i} === ${len} - 1; ${loop}.length = ${len};`);
  }

  override compileInclude(node: IncludeNode, frame: unknown): void {
    const name = node.template.typename === 'Literal' && typeof node.template.value === 'string' ? node.template.value : null;
    if (name !== null) {
      if (!this.inlineTemplate(name)) super.compileInclude(node, frame);
      return;
    }
    // A computed name: a switch over the expected names, the run-time include for any other.
    const chosen = this._tmpid();
    this._emit(`var ${chosen} = `);
    this._compileExpression(node.template, frame);
    this._emitLine(`;\nswitch (${chosen}) {`);
    for (const candidate of this.sources.options.dynamicIncludes) {
      this._emitLine(`case ${JSON.stringify(candidate)}: {`);
      if (!this.inlineTemplate(candidate)) this._withScopedSyntax(() => super.compileInclude(node, frame));
      this._emitLine('break; }');
    }
    this._emitLine('default: {');
    this._withScopedSyntax(() => super.compileInclude(node, frame));
    this._emitLine('} }');
  }

  /** Emits `name`'s code in an include's frame; false when it must stay a run-time include. */
  private inlineTemplate(name: string): boolean {
    if (this.inlining.includes(name)) return false;
    const root = this.sources.inlinable(name);
    if (root === null) return false;
    this.inlining.push(name);
    this._emitLine('frame = frame.push(true);');
    this._withScopedSyntax(() => this._compileChildren(root, new internals.runtime.Frame()));
    this._emitLine('frame = frame.pop();');
    this.inlining.pop();
    return true;
  }
}

/**
 * The JavaScript nunjucks would compile for template `name`, with its
 * includes inlined (see the file comment). Throws nunjucks' own
 * TemplateError on a syntax error.
 */
export function compileInlined(name: string, sources: InlineSources): string {
  const root = sources.options.readSource(name);
  if (root === null) throw new Error(`template not found: ${name}`);
  const compiler = new InliningCompiler(name, sources);
  compiler.compile(parseTemplate(root, sources.options.parse));
  return compiler.getCode();
}
