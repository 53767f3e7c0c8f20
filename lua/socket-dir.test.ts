// The fallback servers' unix sockets inside real NGINX: NGINX makes every unix
// socket 0666, so their directory is the gate: the servers' request-body temp
// directory, which NGINX creates before it binds them, 0700 and owned by its
// workers' user (http.njk). NGINX's workers must still reach them (a backend
// without endpoints answers 503 through one), another user must not (connect()
// is refused), whether the master runs as root with its workers as nobody, or
// master and workers as one unprivileged user. Run as root, both rows run;
// otherwise only the second, as this user.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { findDataplane } from '../controller/src/nginx/dataplane.ts';
import { contractHttpBlock, freePort, startNginx, type RunningNginx } from './test/nginx-harness.ts';
import { connectAs, STRANGER, uidOf } from './test/socket-access.ts';

const AS_ROOT = process.geteuid?.() === 0;

interface Row {
  readonly name: string;
  /** The master's user (the harness's default: ours). */
  readonly user?: { readonly uid: number; readonly gid: number };
  /** Who owns the socket directory: the workers' user. */
  readonly owner: () => number;
}

const rows: readonly Row[] = [
  // NGINX's compiled-in worker user when nginx.conf has no `user` directive (ours has none).
  ...(AS_ROOT ? [{ name: 'master as root, workers as nobody', owner: () => uidOf('nobody') }] : []),
  {
    name: 'master and workers as one unprivileged user',
    user: AS_ROOT ? { uid: 65534, gid: 65534 } : undefined,
    owner: () => (AS_ROOT ? 65534 : process.getuid?.() ?? -1),
  },
];

void describe('fallback sockets: only NGINX\'s workers reach them', () => {
  for (const row of rows) {
    void describe(row.name, () => {
      let nginx: RunningNginx | undefined;
      after(async () => {
        await nginx?.stop();
      });

      void it('the socket directory is the gate, the workers pass it, another user does not', async () => {
        const dataplane = findDataplane();
        const statusPort = await freePort();
        const proxyPort = await freePort();
        // No backend is pushed: the balancer sends every request to the unavailable fallback (503).
        const proxy = `
    server {
      listen 127.0.0.1:${proxyPort};
      location / {
        set $resty_route "nothing-here _";
        proxy_pass http://upstream_balancer;
      }
    }`;
        nginx = await startNginx({ dataplane, readyPort: statusPort, http: contractHttpBlock(dataplane, statusPort, proxy), user: row.user });
        const dir = `${nginx.prefix}/sockets`;
        const info = statSync(dir);
        assert.ok(info.isDirectory());
        assert.equal((info.mode & 0o7777).toString(8), '700', `mode of ${dir}`);
        assert.equal(info.uid, row.owner(), `owner of ${dir}`);
        for (const socket of ['unavailable.sock', 'https-redirect.sock']) {
          assert.ok(statSync(`${dir}/${socket}`).isSocket(), `${socket} is in ${dir}`);
        }

        for (let i = 0; i < 4; i++) {
          const res = await fetch(`http://127.0.0.1:${proxyPort}/`);
          assert.equal(res.status, 503, 'a worker reached the unavailable fallback');
          await res.arrayBuffer();
        }
        if (AS_ROOT) {
          assert.equal(await connectAs(STRANGER, `${dir}/unavailable.sock`), 'EACCES', 'another user must not connect');
          assert.equal(await connectAs(STRANGER, `${dir}/https-redirect.sock`), 'EACCES', 'another user must not connect');
        }
        assert.deepEqual(nginx.seriousLogLines(), []);
      });
    });
  }
});
