// e2e/harness — what an end-to-end test needs to drive resty-ingress the way
// users do: the local cluster (API server + simulator, in-process), real
// kubectl against it, the real controller process with its real NGINX, and
// HTTP through NGINX (single requests and paced load).
// May import: ../cluster/*, node, yaml, @kubernetes/client-node. Imports nothing of controller/.
//
//   const { cluster, controller: ctl } = await startStack(t);   // IngressClass resty; both stopped by t.after
//   (or: startCluster() + startController(cluster), each with its own t.after(() => x.stop()))
//   await cluster.apply(appManifest({ name: 'web' }) + '---\n' + ingressManifest({ name: 'web', host: 'web.test', paths: [{ path: '/', service: 'web' }] }));
//   const res = await request(ctl.http, { host: 'web.test', path: '/' });   // res.pod, res.echo
//   const report = await loadLoop({ url: ctl.http, host: 'web.test', rate: 50, durationMs: 5_000 });
export { startCluster, type Cluster, type ClusterOptions, type EventInfo } from './cluster.ts';
export { startStack, type AfterHook, type Stack, type StackOptions } from './controller.ts';
export { startController, READY_MESSAGE, RELOADED_MESSAGE, REPO_ROOT, type ControllerHandle, type ControllerHarnessOptions, type ControllerPorts } from './controller.ts';
export { KubectlError, runKubectl, KUBECTL_PATH, type KubectlResult } from './cluster.ts';
export { request, type HttpResponse, type RequestOptions } from './http.ts';
export { loadLoop, type LoadOptions, type LoadReport, type LoadSample } from './load.ts';
export { loadLoopInWorker } from './load-worker.ts';
export { appManifest, ingressClassManifest, ingressManifest, yamlDocuments, type AppInput, type IngressInput, type IngressPathInput } from './manifests.ts';
export { collectLogs, isForbidden, parseLogLine, type LogCollector, type LogEntry, type LogMatcher } from './log-collector.ts';
export { nginxProcessesOf, listProcesses, mastersOf, signalAll, type ProcessInfo } from './processes.ts';
export { freePort, freePorts, isPortFree, probeTcp, randomLoopbackPool } from './network.ts';
export { sleep, waitFor, waitForResponse, waitUntilSteady, runCleanups } from './wait.ts';
export { refusingTemplates, REFUSED_DIRECTIVE, REFUSED_PATH, type RefusingTemplates } from './refusing-templates.ts';
export { webhookArgs, webhookCertificateFiles, webhookConfiguration, type WebhookCertificate } from './webhook.ts';
