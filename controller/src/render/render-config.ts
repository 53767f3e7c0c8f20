// Model → nginx.conf text and its version. The version is what the status
// server answers on GET /config-version; after a reload the controller polls
// it to know the new workers run the new configuration.

import { createHash } from 'node:crypto';
import type { Model } from '../model/types.ts';
import { buildConfigView, type ConfigView } from './config-view.ts';
import { RenderError } from './nginx-values.ts';
import { resolveRenderOptions, type RenderOptions } from './render-options.ts';
import { LOCATION_PARTIALS } from './location-blocks.ts';
import { createServerBlocks, SERVER_TEMPLATE, type RenderedServerBlocks } from './server-blocks.ts';
import { ServerViews } from './server-views.ts';
import { createTemplateEnvironment, hashTemplates } from './template-environment.ts';

/** The entry template; it includes the per-context templates. */
export const MAIN_TEMPLATE = 'nginx.conf.njk';

/** A rendered configuration. */
export interface RenderedConfig {
  /** The whole nginx.conf. */
  readonly conf: string;
  /** 16 hex chars of sha256 over the templates and everything rendered; served at /config-version. */
  readonly version: string;
}

/** Renders models with one set of options; owns the template cache. */
export interface ConfigRenderer {
  render(model: Model): RenderedConfig;
}

/**
 * The version hashes the view (the static part of the model, already
 * stripped of endpoints, plus the options) and the template sources. The
 * view arrives as the JSON pieces server-blocks.ts made anyway (context,
 * then each server) plus serverNamesHash, so it is not serialised twice.
 * JSON.stringify is deterministic here because the view is built by our
 * own code with a fixed key order from arrays the model keeps sorted.
 */
function versionOf(templatesHash: string, view: ConfigView, keys: readonly string[]): string {
  const hash = createHash('sha256').update(templatesHash).update('\0').update(JSON.stringify(view.serverNamesHash));
  // stream{} is outside the server blocks' keys (server-blocks.ts), so it is hashed here.
  if (view.stream !== null) hash.update('\0').update(JSON.stringify(view.stream));
  for (const key of keys) hash.update('\n').update(key);
  return hash.digest('hex').slice(0, 16);
}

/**
 * Stands for the server blocks while the main template renders. The filters
 * refuse control characters, so a NUL can only come from `serverBlocks`;
 * assembleConf() still uses it only when it comes out exactly once.
 */
const SERVER_BLOCKS_MARK = '\0resty-ingress:server-blocks\0';

/**
 * nginx.conf as ONE flat string: the main template around a mark, then the
 * blocks joined in at the mark, so the server-block cache can keep slices of
 * the conf the controller holds anyway instead of a second copy (nunjucks
 * output is a rope of many small strings; join() makes it flat). Falls back
 * to printing the joined blocks through the template when the mark does not
 * come out exactly once (a template that does not print serverBlocks).
 */
export function assembleConf(renderMain: (serverBlocks: string) => string, blocks: RenderedServerBlocks): string {
  const shell = renderMain(SERVER_BLOCKS_MARK);
  const at = shell.indexOf(SERVER_BLOCKS_MARK);
  if (at >= 0 && shell.indexOf(SERVER_BLOCKS_MARK, at + 1) < 0) {
    const conf = [shell.slice(0, at), ...blocks.texts, shell.slice(at + SERVER_BLOCKS_MARK.length)].join('');
    blocks.keep(conf, at);
    return conf;
  }
  const joined = blocks.texts.join('');
  const conf = renderMain(joined);
  blocks.keep(joined, 0);
  return conf;
}

/**
 * Checks the options, loads the templates once, and returns a renderer.
 * Throws RenderError('InvalidOptions') on bad options or a missing template folder.
 */
export function createConfigRenderer(options: RenderOptions): ConfigRenderer {
  const resolved = resolveRenderOptions(options);
  const templatesHash = hashTemplates(resolved.templateDir);
  const templates = createTemplateEnvironment(resolved.templateDir, LOCATION_PARTIALS);
  const serverBlocks = createServerBlocks((context) => templates.env.render(SERVER_TEMPLATE, context));
  const serverViews = new ServerViews();
  return {
    render(model: Model): RenderedConfig {
      const view = buildConfigView(model, resolved, serverViews);
      let conf: string;
      let version: string;
      try {
        const blocks = serverBlocks.render(view);
        version = versionOf(templatesHash, view, blocks.keys);
        conf = assembleConf((serverBlocks) => templates.env.render(MAIN_TEMPLATE, { ...view, version, serverBlocks }), blocks);
      } catch (error) {
        const fromFilter = templates.takeFilterError();
        if (fromFilter !== null) throw fromFilter;
        // The server views are built as the blocks render: their contract errors keep their codes.
        if (error instanceof RenderError) throw error;
        throw new RenderError('TemplateFailed', `rendering ${MAIN_TEMPLATE} failed: ${String(error)}`, { cause: error });
      }
      return { conf, version };
    },
  };
}

/**
 * One-shot render: same model + options → byte-identical conf and version.
 * Long-lived callers should keep a createConfigRenderer() instead, which
 * reads the templates once.
 */
export function renderConfig(model: Model, options: RenderOptions): RenderedConfig {
  return createConfigRenderer(options).render(model);
}
