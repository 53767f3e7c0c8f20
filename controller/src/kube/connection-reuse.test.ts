// reuseConnections: one keep-alive agent while the TLS options hold, a new one when they change, proxies as before.
import assert from 'node:assert/strict';
import { Agent } from 'node:https';
import { describe, it } from 'node:test';

import { KubeConfig } from '@kubernetes/client-node';

import { agentKey, reuseConnections } from './connection-reuse.ts';

function config(user: Record<string, unknown>, cluster: Record<string, unknown> = {}): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: false, caData: Buffer.from('ca').toString('base64'), ...cluster }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

async function agentOf(kc: KubeConfig): Promise<unknown> {
  return ((await kc.applyToFetchOptions({})) as { agent?: unknown }).agent;
}

void describe('reuseConnections', () => {
  void it('hands every request the same keep-alive agent (stock client-node: a new one each time)', async () => {
    const stock = config({ token: 't' });
    assert.notEqual(await agentOf(stock), await agentOf(stock), 'the behaviour this works around');
    const kc = reuseConnections(config({ token: 't' }));
    const first = await agentOf(kc);
    assert.ok(first instanceof Agent);
    assert.equal((first as Agent & { keepAlive?: boolean }).keepAlive, true);
    assert.equal(await agentOf(kc), first);
  });

  void it('makes a new agent when the client certificate changes', async () => {
    const kc = reuseConnections(config({ certData: Buffer.from('cert-1').toString('base64'), keyData: Buffer.from('key-1').toString('base64') }));
    const first = await agentOf(kc);
    assert.equal(await agentOf(kc), first);
    const user = kc.getCurrentUser() as { certData?: string };
    user.certData = Buffer.from('cert-2').toString('base64');
    const second = await agentOf(kc);
    assert.notEqual(second, first);
    assert.equal(await agentOf(kc), second);
  });

  void it('leaves proxy agents per request', async () => {
    const kc = reuseConnections(config({ token: 't' }, { proxyUrl: 'http://127.0.0.1:3128' }));
    assert.notEqual(await agentOf(kc), await agentOf(kc));
  });
});

void describe('agentKey', () => {
  const rows = [
    { name: 'same content, different Buffers', a: { ca: Buffer.from('x') }, b: { ca: Buffer.from('x') }, same: true },
    { name: 'different CA', a: { ca: Buffer.from('x') }, b: { ca: Buffer.from('y') }, same: false },
    { name: 'verification off', a: { rejectUnauthorized: true }, b: { rejectUnauthorized: false }, same: false },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      assert.equal(agentKey(null, row.a) === agentKey(null, row.b), row.same);
    });
  }
});
