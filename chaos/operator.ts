// The real operator (node dist/cmd/main.js run) for the chaos scenarios, in its own process group so that a kill
// takes the operator and its helm children at once, as a container kill does. Keeps the JSON log in memory and in a
// file. Used by the scenarios; never signals anything outside the groups it started.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { groupMembers } from './proc.ts';

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

export interface OperatorHandle {
  readonly pid: number;
  output(): string;
  /** Lines of the JSON log whose `msg` is `msg`. */
  logged(msg: string): Record<string, unknown>[];
  /** SIGKILL to the whole process group (operator and helm children); resolves once every member is gone. */
  killGroup(): Promise<void>;
  /** SIGTERM to the operator only (it stops its own helm children), then waits for the group to be empty. */
  stop(timeoutMs?: number): Promise<number | null>;
  readonly exited: Promise<number | null>;
}

export function startOperator(o: OperatorOptions): OperatorHandle {
  const child = spawn(
    process.execPath,
    [
      join(o.root, 'dist/cmd/main.js'),
      'run',
      `--watches-file=${o.watchesFile}`,
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=127.0.0.1:0',
      ...(o.args ?? []),
    ],
    {
      cwd: o.root,
      detached: true, // its own process group: the operator and the helm processes it starts
      env: { ...process.env, ...o.env, KUBECONFIG: o.kubeconfig, HELM_BINARY: o.helm },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const pid = child.pid ?? -1;
  let out = '';
  const onData = (d: string) => {
    out += d;
    if (out.length > 8_000_000) out = out.slice(-4_000_000);
    appendFileSync(o.logFile, d);
  };
  child.stdout.setEncoding('utf8').on('data', onData);
  child.stderr.setEncoding('utf8').on('data', onData);
  // 'close' comes after 'exit' once stdout and stderr are drained, so output() then holds the last line.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const groupGone = async (timeoutMs: number) => {
    const deadline = performance.now() + timeoutMs;
    while (groupMembers(pid).length > 0) {
      if (performance.now() > deadline) throw new Error(`process group ${pid} still has members after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    pid,
    output: () => out,
    logged(msg) {
      const lines: Record<string, unknown>[] = [];
      for (const line of out.split('\n')) {
        if (!line.includes(`"msg":${JSON.stringify(msg)}`)) continue;
        try {
          lines.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // a torn line at the buffer's edge
        }
      }
      return lines;
    },
    async killGroup() {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
      await groupGone(10_000);
    },
    async stop(timeoutMs = 60_000) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const code = await exited;
      await groupGone(timeoutMs);
      return code;
    },
    exited,
  };
}
