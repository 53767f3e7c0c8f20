// build_info: the release from package.json, the commit only when it looks like one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import packageJson from '../../../package.json' with { type: 'json' };
import { currentBuildInfo, registerBuildInfo } from './build-info.ts';

void describe('build_info', () => {
  const rows = [
    { name: 'no commit given', env: {}, build: 'UNKNOWN' },
    { name: 'a commit hash', env: { RESTY_INGRESS_BUILD_COMMIT: '3dfc977' }, build: '3dfc977' },
    { name: 'anything else is not a label value', env: { RESTY_INGRESS_BUILD_COMMIT: 'x"}\n' }, build: 'UNKNOWN' },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const registry = new Registry();
      registerBuildInfo(registry, currentBuildInfo(row.env));
      assert.match(await registry.metrics(),
        new RegExp(`^nginx_ingress_controller_build_info\\{release="v${packageJson.version.replaceAll('.', '\\.')}",build="${row.build}",repository="resty-ingress"\\} 1$`, 'mu'));
    });
  }
});
