// What the snippets (model/features/snippets.ts) print, and whose a snippet
// line is. A snippet's lines were rebuilt by the model from the tokens NGINX
// reads; the `snippet` filter reads them again before any is printed, so a
// model from elsewhere (a hand-written render input) cannot slip text past
// the rules. A server-snippet sits between two comment lines naming its
// Ingress: when `nginx -t` names a line between them, that Ingress is left
// out (conf-owners.ts). No snippet line can start one: comments are dropped
// from snippets and a quoted string cannot span lines (snippet-tokens.ts).

import deepEqual from 'fast-deep-equal';
import { checkSnippet } from '../model/features/snippet-rules.ts';
import type { IngressRef, Location, Model, SnippetsConfig } from '../model/types.ts';
import { RenderError } from './nginx-values.ts';

/** One Ingress's server-snippet in a server. */
export interface ServerSnippetView {
  /** `namespace/name` of the Ingress. */
  readonly owner: string;
  readonly lines: readonly string[];
}

/** The ConfigMap's snippets (main-, http-, server-snippet), printed outside the locations. */
export interface GlobalSnippetsView {
  readonly main: readonly string[];
  readonly http: readonly string[];
  readonly everyServer: readonly string[];
}

const NONE: readonly string[] = Object.freeze([]);

/** The `snippet` filter: `lines` if they are what the snippet rules accept and print, else a RenderError. */
export function checkSnippetLines(value: unknown): readonly string[] {
  if (!Array.isArray(value) || !value.every((line) => typeof line === 'string')) throw new RenderError('UnsafeValue', 'snippet: expected an array of lines');
  const lines = value as string[];
  const checked = checkSnippet(lines.join('\n'));
  if (!checked.ok) throw new RenderError('UnsafeValue', `snippet refused: ${checked.reason}`);
  if (!deepEqual(checked.value, lines)) throw new RenderError('UnsafeValue', 'snippet: lines are not as the snippet rules print them');
  return lines;
}

/** The server-snippets of a server's locations: one per Ingress that set one, in the order of its first location. */
export function serverSnippetsOf(locations: readonly Location[]): readonly ServerSnippetView[] {
  const views: ServerSnippetView[] = [];
  const seen = new Set<string>();
  for (const location of locations) {
    const lines = location.policy.snippets?.server ?? NONE;
    if (lines.length === 0 || location.ingress === null || location.ingress === undefined) continue;
    const owner = `${location.ingress.namespace}/${location.ingress.name}`;
    if (seen.has(owner)) continue;
    seen.add(owner);
    views.push({ owner, lines });
  }
  return views;
}

/** The ConfigMap's snippets of `model` (none in a model from before the feature). */
export function globalSnippetsOf(model: Model): GlobalSnippetsView {
  const snippets: SnippetsConfig | undefined = model.settings?.snippets;
  return { main: snippets?.main ?? NONE, http: snippets?.http ?? NONE, everyServer: snippets?.everyServer ?? NONE };
}

const BEGIN = /^\s*# server-snippet of "([^"/]+)\/([^"]+)" \(begin\)$/u;
const END = /^\s*# server-snippet of "[^"]+" \(end\)$/u;

/** The Ingress whose server-snippet holds line `line` (1-based) of `conf`, or null when the line is in none. */
export function snippetOwnerAt(conf: string, line: number): IngressRef | null {
  const lines = conf.split('\n', line);
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const text = lines[i] ?? '';
    if (END.test(text) && i !== line - 1) return null;
    const begin = BEGIN.exec(text);
    if (begin !== null) return { namespace: begin[1] ?? '', name: begin[2] ?? '' };
  }
  return null;
}
