// init.lua (init_by_lua, in the master) refuses to let NGINX start without
// what the request path needs: the fallback peers the balancer sends a
// request to when it has no backend peer for it (balancer.lua). NGINX then
// fails `nginx -t` with the reason, instead of answering 500s later.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findDataplane } from '../controller/src/nginx/dataplane.ts';
import { contractHttpBlock, freePort, startNginx } from './test/nginx-harness.ts';

void describe('init: the fallback peers are required', () => {
  const rows: { name: string; init: string; expect: RegExp }[] = [
    { name: 'none given', init: 'init()', expect: /resty_ingress\.init: the unavailable fallback peer is missing/ },
    { name: 'no unavailable peer', init: 'init({ https_redirect = "unix:/tmp/x.sock" })', expect: /the unavailable fallback peer is missing/ },
    { name: 'a redirect peer that is not a string', init: 'init({ unavailable = "unix:/tmp/x.sock", https_redirect = 1 })', expect: /the https_redirect fallback peer must be a string/ },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const dataplane = findDataplane();
      const statusPort = await freePort();
      const contract = contractHttpBlock(dataplane, statusPort, '');
      const http = (prefix: string): string => {
        const text = contract(prefix);
        const replaced = text.replace(/init\(\{[^}]*\}\)/u, row.init);
        assert.notEqual(replaced, text, 'the contract block calls init({ ... })');
        return replaced;
      };
      await assert.rejects(startNginx({ dataplane, readyPort: statusPort, http }), row.expect);
    });
  }

  void it('both given: NGINX starts', async () => {
    const dataplane = findDataplane();
    const statusPort = await freePort();
    const nginx = await startNginx({ dataplane, readyPort: statusPort, http: contractHttpBlock(dataplane, statusPort, '') });
    try {
      assert.deepEqual(nginx.seriousLogLines(), []);
    } finally {
      await nginx.stop();
    }
  });
});
