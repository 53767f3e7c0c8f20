// A nunjucks compiler that compiles each `{% include %}` into a plain call:
// every template a root template includes (transitively) becomes a function
// in the root's compiled code, called where the include was. The templates
// stay split per NGINX context in the source; only the compiled code is one
// module.
//
// Why: a run-time include costs a getTemplate, an a-sync-waterfall of three
// callbacks, a new Context (a copy of every context variable) and a Template
// render; location.njk includes one partial per feature of every location, so
// at 10,000 Ingresses that machinery was most of the first render's time.
//
// Same output, by construction: a partial's code is what nunjucks compiles
// for it on its own (a fresh compile-time frame, so each name it does not
// set itself is looked up at run time, as in an include), run in the frame
// an include gives it, `frame.push(true)`: it reads every variable the
// includer sees, and its `{% set %}`s stay in that write-isolated frame. Two
// differences, both unobservable here: the frame is not `topLevel`, so a set
// does not also land in the context (an include's context is its own copy,
// thrown away after; only a macro reads the context, see below), and the
// partial shares the includer's context instead of a copy of it.
// Left a run-time include, as before: a template that defines a macro,
// imports, extends or has blocks (they depend on the context or on template
// identity), a name no file has (nunjucks' own error, at run time as before),
// and a computed name outside `dynamicIncludes`.

// @ts-expect-error: nunjucks ships no types for its internal modules (the shape is declared below).
import transformerModule from 'nunjucks/src/transformer.js';
import nunjucks from 'nunjucks';

/** The parts of nunjucks' undocumented compiler API used here (nunjucks 3.2.x src/compiler.js, nodes.js). */
interface TemplateNode {
  readonly typename: string;
  /** The names of the properties holding its child nodes (or arrays of them). */
  readonly fields: readonly string[];
}
/** A node class of nunjucks' nodes.js. */
type NodeType = abstract new (...args: never[]) => TemplateNode;
interface IncludeNode extends TemplateNode {
  readonly template: TemplateNode & { readonly value?: unknown };
}
interface CompilerBase {
  compile(node: TemplateNode, frame?: unknown): void;
  compileInclude(node: IncludeNode, frame: unknown): void;
  compileRoot(node: TemplateNode, frame: unknown): void;
  getCode(): string;
  buffer: string | null;
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
  readonly nodes: Readonly<Record<
    'Node' | 'Macro' | 'Import' | 'FromImport' | 'Extends' | 'Block' | 'IfAsync' | 'AsyncEach' | 'AsyncAll' | 'CallExtensionAsync', NodeType
  >>;
  readonly runtime: { readonly Frame: new () => unknown };
}
const internals = nunjucks as unknown as NunjucksInternals;
/**
 * What nunjucks' own compile() runs between parse and compile: lifts async filters, super() in blocks, and marks the statements around async nodes.
 * A static import, not createRequire: the image's bundle (scripts/build.ts) only holds what is imported statically.
 */
const transformer = transformerModule as {
  transform(root: TemplateNode, asyncFilters: readonly string[]): TemplateNode;
};
const { Node, Macro, Import, FromImport, Extends, Block, IfAsync, AsyncEach, AsyncAll, CallExtensionAsync } = internals.nodes;
/** What makes a template depend on its own context or identity: left a run-time include. */
const BOUND: readonly NodeType[] = [Macro, Import, FromImport, Extends, Block];
/** Without these (and without async filters: the Environment has none) the transformer returns the tree unchanged. */
const TRANSFORMED: readonly NodeType[] = [Block, IfAsync, AsyncEach, AsyncAll, CallExtensionAsync];

/** Which of `types` occur in the tree under `root`, found in one pass (as Node.findAll walks: every field). */
function typesIn(root: TemplateNode, types: readonly NodeType[]): Set<NodeType> {
  const found = new Set<NodeType>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!(value instanceof Node)) return;
    for (const type of types) if (value instanceof type) found.add(type);
    for (const field of value.fields) visit((value as unknown as Record<string, unknown>)[field]);
  };
  visit(root);
  return found;
}

/** `source` parsed as nunjucks' compile() parses it (the Environment has no extensions and no async filters), and the node types in it. */
function parseTemplate(source: string, options: ParseOptions): { readonly root: TemplateNode; readonly types: Set<NodeType> } {
  const parsed = internals.parser.parse(source, [], options);
  const types = typesIn(parsed, [...new Set([...BOUND, ...TRANSFORMED])]);
  // The transformer walks the subtree of every if and for again (quadratic in nesting): only where it changes something.
  const root = TRANSFORMED.some((type) => types.has(type)) ? transformer.transform(parsed, []) : parsed;
  return { root, types };
}

/** The lexer options that change what a template's text means (the Environment's). */
export interface ParseOptions {
  readonly trimBlocks: boolean;
  readonly lstripBlocks: boolean;
}

export interface InlineOptions {
  readonly parse: ParseOptions;
  readonly throwOnUndefined: boolean;
  /** Every name a computed `{% include expr %}` is expected to give: each is called behind a switch; any other name is a run-time include. */
  readonly dynamicIncludes: readonly string[];
  /** A template's source, or null when there is no such template. */
  readSource(name: string): string | null;
}

/** Parses and remembers templates for one set of options; null for a template left a run-time include. */
export class InlineSources {
  readonly options: InlineOptions;
  private readonly parsed = new Map<string, TemplateNode | null>();

  constructor(options: InlineOptions) {
    this.options = options;
  }

  /** The parsed template when it may be compiled into its includer, else null. */
  inlinable(name: string): TemplateNode | null {
    const cached = this.parsed.get(name);
    if (cached !== undefined) return cached;
    const source = this.options.readSource(name);
    const parsed = source === null ? null : parseTemplate(source, this.options.parse);
    const result = parsed === null || BOUND.some((type) => parsed.types.has(type)) ? null : parsed.root;
    this.parsed.set(name, result);
    return result;
  }
}

class InliningCompiler extends internals.compiler.Compiler {
  private readonly sources: InlineSources;
  /** Template name → the name of its function in the compiled code. */
  private readonly partials = new Map<string, string>();
  /** Partials named at an include but not emitted yet. */
  private readonly pending: string[] = [];

  constructor(name: string, sources: InlineSources) {
    super(name, sources.options.throwOnUndefined);
    this.sources = sources;
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
      if (!this.callPartial(name)) super.compileInclude(node, frame);
      return;
    }
    // A computed name: a switch over the expected names, the run-time include for any other.
    const chosen = this._tmpid();
    this._emit(`var ${chosen} = `);
    this._compileExpression(node.template, frame);
    this._emitLine(`;\nswitch (${chosen}) {`);
    for (const candidate of this.sources.options.dynamicIncludes) {
      if (this.sources.inlinable(candidate) === null) continue;
      this._emitLine(`case ${JSON.stringify(candidate)}:`);
      this.callPartial(candidate);
      this._emitLine('break;');
    }
    this._emitLine('default: {');
    this._withScopedSyntax(() => super.compileInclude(node, frame));
    this._emitLine('} }');
  }

  /** The compiled code: the root template's, then one function per partial it reaches. */
  override compileRoot(node: TemplateNode, frame: unknown): void {
    super.compileRoot(node, frame);
    // After the root's `return {...}`: function declarations are hoisted, so this is valid and the root's code stays as nunjucks emits it.
    for (let name = this.pending.shift(); name !== undefined; name = this.pending.shift()) this.emitPartial(name);
  }

  /** Emits a call of `name`'s function in a frame as an include makes it (a template including itself calls itself); false when it must stay a run-time include. */
  private callPartial(name: string): boolean {
    if (this.sources.inlinable(name) === null) return false;
    let id = this.partials.get(name);
    if (id === undefined) {
      id = `partial_${this._tmpid()}`;
      this.partials.set(name, id);
      this.pending.push(name);
    }
    this._emitLine(`${this.buffer} += ${id}(env, context, frame.push(true), runtime, cb);`);
    return true;
  }

  /** `name`'s code as a function returning its output; an error leaves it with its own line, as from an include. */
  private emitPartial(name: string): void {
    const root = this.sources.inlinable(name);
    if (root === null) throw new Error(`${name} is not inlinable`);
    this._emitLine(`function ${this.partials.get(name)}(env, context, frame, runtime, cb) {`);
    this._emitLine('var lineno = 0;\nvar colno = 0;\nvar output = "";\ntry {');
    this.buffer = 'output';
    // A fresh compile-time frame: every name the template does not set itself is looked up at run time, as in an include.
    this._withScopedSyntax(() => this._compileChildren(root, new internals.runtime.Frame()));
    this._emitLine('} catch (e) {\nthrow runtime.handleError(e, lineno, colno);\n}\nreturn output;\n}');
    this.buffer = null;
  }
}

/**
 * The JavaScript nunjucks would compile for template `name`, with its
 * includes compiled in (see the file comment). Throws nunjucks' own
 * TemplateError on a syntax error.
 */
export function compileInlined(name: string, sources: InlineSources): string {
  const root = sources.options.readSource(name);
  if (root === null) throw new Error(`template not found: ${name}`);
  const compiler = new InliningCompiler(name, sources);
  compiler.compile(parseTemplate(root, sources.options.parse).root);
  return compiler.getCode();
}
