// Which Ingress a line of a rendered nginx.conf came from. When `nginx -t`
// refuses a configuration it names a line (`... in nginx.conf:207`); the
// sync leaves that line's Ingress out and applies the rest, so that one
// tenant's mistake stops nobody else's changes.
//
// The conf is read back the way NGINX reads it (words, quotes, `#` comments,
// `{`, `}`, `;`) up to the named line: the innermost `location` block there
// and the `server_name` of its server give the model Server and, through the
// (modifier, path) pairs this renderer prints for each model Location
// (location-blocks.ts), the Location and its Ingress. A line outside every
// Ingress's location (http{}, a server's own directives, the generated
// `location /` that answers 404) has no owner: the caller falls back to
// trying the Ingresses that changed one half at a time.

import type { IngressRef, Model } from '../model/types.ts';
import { serverMatchersOf } from './location-blocks.ts';
import { isRegexHost } from '../model/regex-hosts.ts';
import { externalAuthOwners } from './external-auth-view.ts';
import { authUpstreamOwners } from './external-auth-upstream-view.ts';
import { mirrorOwners } from './mirror-view.ts';
import { snippetOwnerAt } from './snippet-view.ts';

/** One open block: its header words (e.g. `location`, `=`, `/api`) and, for a server, its server_name. */
interface Frame {
  readonly words: readonly string[];
  serverName?: string;
}

const isSpace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';

/** Index after the Lua block that starts after `from` (`{` already read): NGINX hands its text to Lua, braces balanced. */
function skipLuaBlock(conf: string, from: number): { end: number; lines: number } {
  let depth = 1;
  let lines = 0;
  let quote: string | null = null;
  let i = from;
  for (; i < conf.length && depth > 0; i++) {
    const ch = conf[i];
    if (ch === '\n') lines++;
    if (quote !== null) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '{') depth++;
    else if (ch === '}') depth--;
  }
  return { end: i, lines };
}

/** The blocks open on line `line` (1-based), outermost first, as NGINX's parser reads them. */
export function blocksAtLine(conf: string, line: number): Frame[] {
  const stack: Frame[] = [];
  let words: string[] = [];
  let word: string | null = null;
  let current = 1;
  const flush = (): void => {
    if (word !== null) words.push(word);
    word = null;
  };
  for (let i = 0; i < conf.length; i++) {
    const ch = conf[i];
    if (ch === '\n') {
      flush();
      current++;
      if (current > line) break;
    } else if (isSpace(ch)) {
      flush();
    } else if (ch === '#' && word === null) {
      while (i + 1 < conf.length && conf[i + 1] !== '\n') i++;
    } else if (ch === '"' || ch === "'") {
      let text = '';
      for (i++; i < conf.length && conf[i] !== ch; i++) {
        if (conf[i] === '\\') i++;
        if (conf[i] === '\n') current++;
        text += conf[i];
      }
      word = (word ?? '') + text;
    } else if (ch === '{') {
      flush();
      const frame: Frame = { words };
      words = [];
      if (frame.words[0]?.endsWith('_by_lua_block')) {
        const skipped = skipLuaBlock(conf, i + 1);
        current += skipped.lines;
        i = skipped.end - 1;
        if (current > line) {
          stack.push(frame);
          break;
        }
        continue;
      }
      stack.push(frame);
    } else if (ch === '}') {
      flush();
      words = [];
      // A block closed on the line itself still holds it (NGINX names a `}` line for what the block lacks).
      if (current < line) stack.pop();
    } else if (ch === ';') {
      flush();
      const top = stack.at(-1);
      if (top?.words[0] === 'server' && words[0] === 'server_name' && words[1] !== undefined) top.serverName = words[1];
      words = [];
    } else {
      word = (word ?? '') + ch;
    }
  }
  return stack;
}

/**
 * The Ingresses that own line `line` (1-based) of `conf`, which was rendered
 * from `model`: the owner of the Ingress location the line falls in (or
 * opens), else none.
 */
export function ownersOfLine(model: Model, conf: string, line: number): IngressRef[] {
  if (!Number.isInteger(line) || line < 1) return [];
  const snippet = snippetOwnerAt(conf, line);
  if (snippet !== null) return [snippet];
  const stack = blocksAtLine(conf, line);
  const mirrored = mirrorOwners(model, stack);
  if (mirrored !== null) return mirrored;
  const authed = externalAuthOwners(model, stack);
  if (authed !== null) return authed;
  const authUpstream = authUpstreamOwners(model, stack);
  if (authUpstream !== null) return authUpstream;
  const serverAt = stack.findLastIndex((frame) => frame.words[0] === 'server');
  const serverName = stack[serverAt]?.serverName;
  if (serverName === undefined) return [];
  const locations = model.servers.find((candidate) => candidate.hostname === serverName)?.locations ?? [];
  const regexHost = isRegexHost(locations, model.settings);
  // Innermost first: a configuration-snippet may nest a location of its own inside its Ingress's.
  for (let at = stack.length - 1; at > serverAt; at--) {
    const header = stack[at].words;
    if (header[0] !== 'location') continue;
    const [modifier, path] = header.length >= 3 ? [header[1], header[2]] : ['', header[1]];
    const printed = locations.filter((location) => serverMatchersOf(location, regexHost, model.settings).some((m) => m.modifier === modifier && m.path === path));
    // `= /foo` of an Exact path and of the Prefix path /foo: render prints the Exact one only
    // (on a regex host, the first in model order of the locations printed as one regex).
    const owner = printed.find((location) => location.match === 'exact') ?? printed[0];
    if (owner !== undefined) return owner.ingress ? [owner.ingress] : [];
  }
  return [];
}
