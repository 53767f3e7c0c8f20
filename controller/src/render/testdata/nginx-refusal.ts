// Renders a model into a fresh prefix and runs the real `nginx -t` on it: the tests that
// prove a value NGINX refuses is blamed on its own Ingress (ownersOfLine) share this.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Model } from '../../model/types.ts';
import { findDataplane } from '../../nginx/dataplane.ts';
import { testNginxConf } from '../../nginx/nginx-conf-files.ts';
import { NginxConfigError } from '../../nginx/nginx-errors.ts';
import { renderConfig } from '../render-config.ts';
import { goldenOptions } from './model-fixtures.ts';
import { makePrefix } from './nginx-runner.ts';

/** What `nginx -t` said of a conf it refused, on the line it named. */
export interface Refusal {
  /** The rendered conf (the line numbers are its lines). */
  readonly conf: string;
  readonly line: number;
  readonly nginxOutput: string;
}

/** Runs `check` on `model` rendered into a fresh prefix (removed afterwards). */
async function withRendered<T>(model: Model, check: (conf: string, run: () => Promise<void>) => Promise<T>): Promise<T> {
  const dataplane = findDataplane();
  const prefix = makePrefix();
  try {
    const { conf } = renderConfig(model, goldenOptions(dataplane, prefix));
    const confPath = join(prefix, 'nginx.conf');
    writeFileSync(confPath, conf);
    return await check(conf, () => testNginxConf({ dataplane, prefix, confPath }));
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
}

/** Fails unless the real `nginx -t` refuses `model`'s conf naming a line; returns what it said. */
export function refusedByNginx(model: Model): Promise<Refusal> {
  return withRendered(model, async (conf, run) => {
    const refused = await run().then(() => assert.fail('nginx -t accepted'), (err: unknown) => err);
    assert.ok(refused instanceof NginxConfigError && refused.refused && refused.line !== null, String(refused));
    return { conf, line: refused.line, nginxOutput: refused.nginxOutput };
  });
}

/** Fails unless the real `nginx -t` accepts `model`'s conf. */
export function acceptedByNginx(model: Model): Promise<void> {
  return withRendered(model, (_conf, run) => run());
}
