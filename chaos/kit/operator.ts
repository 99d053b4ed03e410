// The real operator for the chaos scenarios, through the one launcher (test/support/operator-process.ts): its own
// process group, metrics and probes on free ports, every log line appended to the scenario's log file. Used by the
// scenarios; never signals anything outside the groups it started.
import { launchOperator, type OperatorProcess } from '../../test/support/operator-process.ts';

export interface OperatorOptions {
  readonly root: string;
  readonly kubeconfig: string;
  readonly watchesFile: string;
  /** The helm binary (HELM_BINARY). */
  readonly helm: string;
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Every log line is also appended here. */
  readonly logFile: string;
}

export type OperatorHandle = OperatorProcess;

export function startOperator(o: OperatorOptions): OperatorHandle {
  return launchOperator({
    root: o.root,
    kubeconfig: o.kubeconfig,
    watchesFile: o.watchesFile,
    helm: o.helm,
    args: ['--metrics-bind-address=127.0.0.1:0', '--health-probe-bind-address=127.0.0.1:0', ...(o.args ?? [])],
    env: { ...process.env, ...o.env },
    logFile: o.logFile,
    appendLog: true,
  });
}
