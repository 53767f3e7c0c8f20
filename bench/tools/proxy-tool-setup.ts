// What the proxy-path tools share: the data plane, the four loopback
// backends on a free port, the proxy model and every side's spec, as the
// benchmark sets them up (bench/proxy/proxy-path.ts), with the NGINX worker
// on CPU 0 and the load and backends on CPU 1.
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Model } from '../../controller/src/model/types.ts';
import { findDataplane } from '../../controller/src/nginx/dataplane.ts';
import type { BenchContext } from '../lib/context.ts';
import { startProxyBackends } from '../proxy/proxy-side.ts';
import { sideSpecs, type Peer, type SideSpec } from '../proxy/reference-conf.ts';

export interface ProxyTool {
  readonly ctx: BenchContext;
  readonly model: Model;
  /** The backends, for a model of another route (buildProxyModel). */
  readonly peers: readonly Peer[];
  /** The sides named on the command line, in that order; every side when none is named. */
  readonly sides: readonly SideSpec[];
}

/** Sets up as above, runs `use`, stops the backends. Throws on a side name it does not know. */
export async function withProxyTool(names: readonly string[], use: (tool: ProxyTool) => Promise<void>): Promise<void> {
  const dataplane = findDataplane();
  const workDir = mkdtempSync(join(tmpdir(), 'resty-proxy-tool-'));
  // NGINX started as root runs its workers as nobody: they must reach the prefixes inside.
  chmodSync(workDir, 0o755);
  const ctx: BenchContext = { profile: 'full', workDir, dataplane, serverCpu: 0, loadCpu: 1, log: (message) => process.stderr.write(`${message}\n`) };
  const { peers, model, backends } = await startProxyBackends(ctx);
  try {
    const specs = sideSpecs(peers);
    const unknown = names.filter((name) => !specs.some((s) => s.label === name));
    if (unknown.length > 0) throw new Error(`unknown side(s) ${unknown.join(', ')}; known: ${specs.map((s) => s.label).join(', ')}`);
    const sides = names.length === 0 ? specs : names.map((name) => specs.find((s) => s.label === name) as SideSpec);
    await use({ ctx, model, peers, sides });
  } finally {
    await backends.nginx.stop();
  }
}
