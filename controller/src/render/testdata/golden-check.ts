// Checks a golden nginx.conf (rendered with goldenOptions()' placeholder paths)
// with the real `nginx -t` of the data-plane runtime. Shared by render's own
// golden test and the in.yaml → model → nginx.conf golden test.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { Model } from '../../model/types.ts';
import { findDataplane, type Dataplane } from '../../nginx/dataplane.ts';
import { writeTlsSessionFiles } from '../../nginx/tls-session-files.ts';
import { PLACEHOLDER_DATAPLANE } from './model-fixtures.ts';
import { checkConfig, makePrefix } from './nginx-runner.ts';

export const GOLDEN_PREFIX = '/golden/prefix';

/** Replaces one placeholder string everywhere, failing if it is absent (the golden file would be stale). */
function swap(conf: string, placeholder: string, real: string): string {
  assert.ok(conf.includes(placeholder), `placeholder ${placeholder} not in the golden conf`);
  return conf.replaceAll(placeholder, real);
}

/** The golden conf with the placeholder prefix and data-plane paths replaced by real ones. */
export function materialize(conf: string, dataplane: Dataplane, prefix: string): string {
  const placeholderModules = PLACEHOLDER_DATAPLANE.modules.map((path) => `load_module "${path}";`).join('\n');
  const realModules = dataplane.modules.map((path) => `load_module "${path}";`).join('\n');
  let real = swap(conf, placeholderModules, realModules);
  // Loaded only by a conf with TCP/UDP services.
  const placeholderStream = `load_module "${PLACEHOLDER_DATAPLANE.streamModule}";`;
  if (real.includes(placeholderStream)) {
    real = real.replace(placeholderStream, `load_module "${dataplane.streamModule}";`);
    real = swap(real, `load_module "${PLACEHOLDER_DATAPLANE.streamJsModule}";`, `load_module "${dataplane.streamJsModule}";`);
    real = swap(real, `"${PLACEHOLDER_DATAPLANE.streamScript}"`, `"${dataplane.streamScript}"`);
  }
  real = swap(real, `"${PLACEHOLDER_DATAPLANE.luaPackagePath}"`, `"${dataplane.luaPackagePath}"`);
  real = swap(real, `"${PLACEHOLDER_DATAPLANE.luaPackageCPath}"`, `"${dataplane.luaPackageCPath}"`);
  return swap(real, GOLDEN_PREFIX, prefix);
}

/**
 * Fails unless the real `nginx -t` accepts the golden conf. `model`: the one rendered, whose files
 * the controller writes before `nginx -t` (the ssl-session-ticket-key file) are written first.
 */
export async function assertNginxAccepts(conf: string, model?: Model): Promise<void> {
  const prefix = makePrefix();
  try {
    if (model !== undefined) writeTlsSessionFiles(prefix, model.settings.tlsSession);
    await checkConfig(findDataplane(), prefix, materialize(conf, findDataplane(), prefix));
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
}
