// A kubeconfig for one user of the local API server: plain HTTP on
// loopback with a bearer token, which kubectl, helm and client-node accept.
import { stringify } from 'yaml';

export function kubeconfigYaml(server: string, user: string, token: string): string {
  const name = 'resty-e2e';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name, context: { cluster: name, user, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
