import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, connect, type AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { freePort, startNginx } from '../../../lua/test/nginx-harness.ts';
import { findDataplane, repoRoot } from './dataplane.ts';
import { multiarch } from './multiarch.ts';

const unpacked = join(repoRoot(), '.cache/dataplane');

void describe('findDataplane', () => {
  const rows: ReadonlyArray<{ name: string; root?: string; luaDir?: string; env?: string; expectCommand: (c: readonly string[]) => boolean; expectLua: string }> = [
    {
      name: 'explicit root runs nginx through the tree\'s own loader',
      root: unpacked,
      expectCommand: (c) => c.length === 4 && c[0].endsWith(multiarch().loader) && c[3] === join(unpacked, 'usr/sbin/nginx'),
      expectLua: join(repoRoot(), 'lua'),
    },
    {
      name: 'root "/" means the image system paths and /etc/nginx/lua',
      root: '/',
      expectCommand: (c) => c.length === 1 && c[0] === '/usr/sbin/nginx',
      expectLua: '/etc/nginx/lua',
    },
    {
      name: 'RESTY_DATAPLANE_ROOT wins over the repo cache',
      env: unpacked,
      luaDir: '/custom/lua',
      expectCommand: (c) => c[3] === join(unpacked, 'usr/sbin/nginx'),
      expectLua: '/custom/lua',
    },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const saved = process.env.RESTY_DATAPLANE_ROOT;
      if (row.env) process.env.RESTY_DATAPLANE_ROOT = row.env;
      try {
        const dp = findDataplane({ root: row.root, luaDir: row.luaDir });
        assert.ok(row.expectCommand(dp.command), `command ${dp.command.join(' ')}`);
        assert.ok(dp.luaPackagePath.startsWith(`${row.expectLua}/?.lua;`), dp.luaPackagePath);
        assert.ok(dp.luaPackagePath.endsWith(';;'));
        assert.ok(dp.luaPackageCPath.endsWith('/lua/5.1/?.so;;'));
        assert.deepEqual(dp.modules.map((m) => m.split('/').pop()), ['ndk_http_module.so', 'ngx_http_lua_module.so']);
        assert.equal(dp.streamModule.split('/').pop(), 'ngx_stream_module.so');
        assert.equal(dp.streamJsModule.split('/').pop(), 'ngx_stream_js_module.so');
        assert.equal(dp.streamScript.split('/').pop(), 'resty_stream.js');
      } finally {
        if (saved === undefined) delete process.env.RESTY_DATAPLANE_ROOT;
        else process.env.RESTY_DATAPLANE_ROOT = saved;
      }
    });
  }

  void it('a root without a runtime is a clear error', () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-dataplane-'));
    after(() => rmSync(empty, { recursive: true, force: true }));
    assert.throws(() => findDataplane({ root: empty }), new RegExp(`no ${multiarch().loader.replaceAll('.', '\\.')} under .*npm run setup`));
  });
});

void describe('the unpacked runtime', () => {
  void it('passes nginx -t, starts unprivileged in its own prefix and runs content_by_lua_block', async () => {
    const dataplane = findDataplane();
    const port = await freePort();
    // As root, prove no privilege is needed by running as nobody.
    const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
    const nginx = await startNginx({
      dataplane,
      user,
      readyPort: port,
      http: `
        lua_package_path "${dataplane.luaPackagePath}";
        lua_package_cpath "${dataplane.luaPackageCPath}";
        server {
          listen 127.0.0.1:${port};
          location = /healthz { return 200 "ok"; }
          location = /lua {
            content_by_lua_block {
              local cjson = require("cjson.safe")
              ngx.say(cjson.encode({ lua = ngx.config.ngx_lua_version, jit = jit.version }))
            }
          }
        }`,
    });
    try {
      const res = await fetch(`http://127.0.0.1:${port}/lua`);
      assert.equal(res.status, 200);
      const body = (await res.json()) as { lua: number; jit: string };
      assert.equal(body.lua, 10028);
      assert.match(body.jit, /^LuaJIT 2\.1/);
      assert.equal(nginx.workerPids().length, 2);
      assert.deepEqual(nginx.seriousLogLines(), []);
    } finally {
      await nginx.stop();
    }
  });

  void it('loads the stream module: a TCP listener proxies bytes both ways and sends PROXY protocol to the backend', async () => {
    const dataplane = findDataplane();
    // The backend answers with what it received, so the PROXY header it saw comes back to the client.
    const backend = createServer((socket) => socket.on('data', (chunk) => socket.write(chunk)));
    await new Promise<void>((done) => backend.listen(0, '127.0.0.1', done));
    after(() => backend.close());
    const backendPort = (backend.address() as AddressInfo).port;
    const [readyPort, tcpPort] = [await freePort(), await freePort()];
    const nginx = await startNginx({
      dataplane,
      readyPort,
      http: `
        lua_package_path "${dataplane.luaPackagePath}";
        lua_package_cpath "${dataplane.luaPackageCPath}";
        server { listen 127.0.0.1:${readyPort}; location = /healthz { return 200 "ok"; } }`,
      stream: `
        upstream echo { server 127.0.0.1:${backendPort}; }
        server { listen 127.0.0.1:${tcpPort}; proxy_pass echo; proxy_protocol on; }`,
    });
    try {
      const received = await new Promise<string>((done, fail) => {
        let text = '';
        const socket = connect(tcpPort, '127.0.0.1', () => socket.write('ping\n'));
        socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
        socket.on('data', (chunk) => {
          text += chunk.toString();
          if (text.endsWith('ping\n')) socket.end();
        });
        socket.on('close', () => done(text));
        socket.on('error', fail);
      });
      assert.match(received, /^PROXY TCP4 127\.0\.0\.1 127\.0\.0\.1 \d+ \d+\r\nping\n$/);
      assert.deepEqual(nginx.seriousLogLines(), []);
    } finally {
      await nginx.stop();
    }
  });
});
