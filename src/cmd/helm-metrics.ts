// Decorates a HelmClient so that every call is timed into helm_operator_helm_exec_duration_seconds{action,result}.
// Called by the CLI (main.ts) around the real helm adapter; it never changes arguments, results or errors.
import type { HelmClient } from '../helm/cli.js';
import type { HelmAction } from '../observability/metrics.js';

export type HelmObserver = (action: HelmAction, result: 'success' | 'error', seconds: number) => void;

export function timedHelm(helm: HelmClient, observe: HelmObserver): HelmClient {
  const time = async <T>(action: HelmAction, call: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      const out = await call();
      observe(action, 'success', (performance.now() - started) / 1000);
      return out;
    } catch (err) {
      observe(action, 'error', (performance.now() - started) / 1000);
      throw err;
    }
  };
  return {
    version: (call) => time('version', () => helm.version(call)),
    install: (params) => time('install', () => helm.install(params)),
    upgrade: (params) => time('upgrade', () => helm.upgrade(params)),
    uninstall: (params) => time('uninstall', () => helm.uninstall(params)),
    rollback: (params) => time('rollback', () => helm.rollback(params)),
  };
}
