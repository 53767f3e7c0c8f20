// What `nginx -t` costs for the nginx.conf of N synthetic apps (one
// Ingress, Service and 5 endpoints each, HTTPS listener on, as the routes
// and scale benchmarks render it), in user-space instructions counted by
// callgrind: the parse every reload pays twice (`nginx -t`, then the master
// on HUP). With a pattern, the same conf without the lines it matches is
// counted too, which prices a directive:
//
//   node bench/tools/parse-cost.ts [apps] [line pattern]
//   node bench/tools/parse-cost.ts 1000 '^ {12}set \$resty_route '   (the locations' lines:
//   the status server's declaration stays, or the metrics log_format would name an unknown variable)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildModel } from '../../controller/src/model/index.ts';
import { findDataplane, repoRoot } from '../../controller/src/nginx/dataplane.ts';
import { createConfigRenderer, defaultCertificatePaths } from '../../controller/src/render/index.ts';
import { writeSelfSignedDefault } from '../../controller/src/tls/default-certificate.ts';
import { syntheticCluster, toSnapshot } from '../lib/synthetic-cluster.ts';
import { BENCH_BUILD_OPTIONS } from '../proxy/proxy-model.ts';
import { hasCallgrind } from '../proxy/instruction-count.ts';

/** Instructions of `nginx -t` on `conf`, written into `prefix`; throws when NGINX refuses it. */
function countParse(prefix: string, name: string, conf: string): number {
  const file = join(prefix, `${name}.conf`);
  writeFileSync(file, conf);
  const result = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${join(prefix, `${name}.callgrind`)}`,
    ...findDataplane().command, '-t', '-q', '-p', prefix, '-c', file, '-e', join(prefix, 'error.log')], { encoding: 'utf8' });
  const collected = /Collected : (\d+)/u.exec(result.stderr)?.[1];
  if (result.status !== 0 || collected === undefined) throw new Error(`nginx -t of ${name} failed: ${result.stderr.slice(-2000)}`);
  return Number(collected);
}

if (!hasCallgrind()) throw new Error('valgrind is not installed (npm run setup installs it)');
const [appsArg = '1000', pattern] = process.argv.slice(2);
const prefix = mkdtempSync(join(tmpdir(), 'resty-parse-cost-'));
try {
  writeSelfSignedDefault(defaultCertificatePaths(prefix));
  const renderer = createConfigRenderer({
    templateDir: join(repoRoot(), 'rootfs/etc/nginx/template'), prefix, listenAddress: '127.0.0.1',
    httpPort: 18080, httpsPort: 18443, statusPort: 18081, workerProcesses: 1, dataplane: findDataplane(),
  });
  const model = buildModel(toSnapshot(syntheticCluster({ apps: Number(appsArg), endpointsPerApp: 5 })), BENCH_BUILD_OPTIONS).model;
  const conf = renderer.render(model).conf;
  const full = countParse(prefix, 'rendered', conf);
  console.log(`rendered (${appsArg} apps, ${conf.length} bytes): ${full} instructions`);
  if (pattern !== undefined) {
    const lines = new RegExp(`${pattern}.*\\n`, 'gmu');
    const dropped = conf.match(lines)?.length ?? 0;
    if (dropped === 0) throw new Error(`no line matches ${pattern}`);
    const rest = countParse(prefix, 'without', conf.replace(lines, ''));
    console.log(`without ${dropped} lines matching ${pattern}: ${rest} instructions; those lines cost ${full - rest} (${(((full - rest) / full) * 100).toFixed(1)} %, ${Math.round((full - rest) / dropped)} per line)`);
  }
} finally {
  rmSync(prefix, { recursive: true, force: true });
}
