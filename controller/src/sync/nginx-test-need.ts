// Whether a reload needs `nginx -t` before the SIGHUP. The master parses the
// file again on the HUP and refuses a bad one by itself (the old workers keep
// serving; the config version is not confirmed), so `nginx -t` first only
// doubles the parse: at 10,000 Ingresses, seconds per new route. It stays
// where nginx.conf gets text NGINX reads that no grammar of ours rebuilt: a
// snippet (its lines are re-tokenised, but their directives are NGINX's to
// judge) or a proxy-ssl-secret's PEMs (files OpenSSL parses). A change that
// brings none of those is built from validated values only. When a reload
// without `nginx -t` is not confirmed, the NGINX manager validates it then
// (a refusal is the same error as before, so the Ingress at fault is found
// and left out) and validates every reload until one is confirmed.
import type { Model } from '../model/types.ts';

/** Texts of `model` that NGINX reads without our grammar: snippet bodies and PEM fingerprints. */
function unparsedTexts(model: Model): ReadonlySet<string> {
  const texts = new Set<string>();
  const add = (kind: string, lines: readonly string[] | undefined): void => {
    if (lines !== undefined && lines.length > 0) texts.add(`${kind}\n${lines.join('\n')}`);
  };
  const global = model.settings.snippets;
  for (const [kind, lines] of Object.entries(global)) add(`settings.${kind}`, lines);
  // Where a snippet sits is part of it: lines NGINX took in one location may not do in another.
  for (const server of model.servers) {
    for (const location of server.locations) {
      const snippets = location.policy.snippets;
      if (snippets === undefined) continue;
      const at = `${server.hostname} ${location.match} ${location.path}`;
      add(`configuration ${at}`, snippets.configuration);
      add(`server ${server.hostname}`, snippets.server);
      add(`auth ${at}`, snippets.auth);
    }
  }
  for (const secret of model.backendTls ?? []) texts.add(`backend-tls\n${secret.id}\n${secret.fingerprint}`);
  return texts;
}

const memo = new WeakMap<Model, ReadonlySet<string>>();

function textsOf(model: Model): ReadonlySet<string> {
  let texts = memo.get(model);
  if (texts === undefined) {
    texts = unparsedTexts(model);
    memo.set(model, texts);
  }
  return texts;
}

/**
 * True when reloading from `running` (the configuration NGINX confirmed) to
 * `next` should run `nginx -t` first: nothing confirmed yet, or `next` holds
 * a snippet or PEM that `running` does not (one NGINX already accepted needs
 * no second look).
 */
export function nginxTestNeeded(running: Model | null, next: Model): boolean {
  if (running === null) return true;
  const before = textsOf(running);
  for (const text of textsOf(next)) {
    if (!before.has(text)) return true;
  }
  return false;
}

/**
 * True when NGINX's first start on `model` should run `nginx -t` first: `model` holds a snippet
 * or PEM. Else the master's own parse is the check (a bad file stops it; the NGINX manager
 * validates only then), and the start pays one parse of the whole file instead of two: at
 * 10,000 Ingresses about a second, at 50,000 several.
 */
export function nginxTestNeededAtStart(model: Model): boolean {
  return textsOf(model).size > 0;
}
