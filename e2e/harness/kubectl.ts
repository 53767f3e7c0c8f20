// Runs the real kubectl (/usr/bin/kubectl, or $KUBECTL) against one
// kubeconfig, the way a user does, with a time limit so a hung call fails
// the test instead of stalling the suite.
import { spawn } from 'node:child_process';

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Thrown by the checked variants when kubectl exits non-zero. */
export class KubectlError extends Error {
  override readonly name = 'KubectlError';
  readonly result: KubectlResult;
  constructor(args: readonly string[], result: KubectlResult) {
    super(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
    this.result = result;
  }
}

export const KUBECTL_PATH = process.env.KUBECTL ?? '/usr/bin/kubectl';

/** Runs kubectl with KUBECONFIG=`kubeconfig`; `stdin` is piped in (for `apply -f -`). Never rejects on a non-zero exit. */
export function runKubectl(kubeconfig: string, args: readonly string[], stdin?: string, timeoutMs = 30_000): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(KUBECTL_PATH, args, {
      env: { ...process.env, KUBECONFIG: kubeconfig },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      resolve({ code: code ?? 128, stdout, stderr: signal ? `${stderr}killed by ${signal} (timeout ${timeoutMs} ms)` : stderr });
    });
    // kubectl may exit before reading all of stdin (bad flags): ignore EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin ?? '');
  });
}
