// A kubeconfig for one user of the local API server: a bearer token, and
// for HTTPS the server's self-signed certificate as the cluster CA.
import { stringify } from 'yaml';

export function kubeconfigYaml(server: string, user: string, token: string, caPem?: string): string {
  const name = 'resty-e2e';
  const cluster: Record<string, string> = { server };
  if (caPem) cluster['certificate-authority-data'] = Buffer.from(caPem).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name, context: { cluster: name, user, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
