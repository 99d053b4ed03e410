// helm middleware: one HelmClient made of the real adapter and a list of middlewares, each of which runs around
// every call (it may add to the parameters it passes on, and observe the result or the error). Each order is
// written once: the process-wide one in manager/process-helm.ts, the per-reconcile one in
// reconciler/release/reconcile-helm.ts. Pure composition; a middleware never swallows a call's error.
import type { HelmCallOptions, HelmClient, ReleaseParams } from './types.js';

/** The helm commands a middleware sees: the release commands (`dry-run`: a dry-run upgrade) and `version`. */
export type HelmCommand = 'version' | 'install' | 'upgrade' | 'dry-run' | 'uninstall' | 'rollback';
export type ReleaseCommand = Exclude<HelmCommand, 'version'>;

/** The parameters of a call: a release command's, or `version`'s (which has no release). */
export type CallParams = HelmCallOptions & Partial<ReleaseParams>;

export interface HelmMiddleware {
  /** For logs and the order tests. */
  readonly name: string;
  /** Runs `next` (the rest of the chain) for one call; passes on `params`, or a copy with more set. */
  around<R>(command: HelmCommand, params: CallParams, next: (params: CallParams) => Promise<R>): Promise<R>;
}

/**
 * `helm` with `middlewares` around every call, the first outermost (it sees the call first and the outcome last).
 * `version` goes through the chain too.
 */
export function chain(helm: HelmClient, middlewares: readonly HelmMiddleware[]): HelmClient {
  const through = <P extends CallParams, R>(command: HelmCommand, call: (p: P) => Promise<R>) => {
    const at = (i: number, params: P): Promise<R> => {
      const mw = middlewares[i];
      if (mw === undefined) return call(params);
      return mw.around(command, params, (next) => at(i + 1, next as P));
    };
    return (params: P) => at(0, params);
  };
  return {
    version: through('version', (p) => helm.version(p)),
    install: through('install', (p) => helm.install(p)),
    upgrade: through('upgrade', (p) => helm.upgrade(p)),
    dryRunUpgrade: through('dry-run', (p) => helm.dryRunUpgrade(p)),
    uninstall: through('uninstall', (p) => helm.uninstall(p)),
    rollback: through('rollback', (p) => helm.rollback(p)),
  };
}
