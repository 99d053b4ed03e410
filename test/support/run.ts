// Runs a command for tests and the chaos suite (helm, hack scripts, kubectl) and returns its stdout. Test-only: the operator's own helm
// calls go through the helm adapter. Failures throw with the command, exit code and stderr tail.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The folder of the Node running the tests (the machine's own Node may be older), and its npm. */
export const NODE_BIN = dirname(process.execPath);
export const NPM = existsSync(join(NODE_BIN, 'npm')) ? join(NODE_BIN, 'npm') : 'npm';

export interface RunOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Forward the child's stderr to ours as it arrives (progress of long scripts). */
  readonly inheritStderr?: boolean;
  readonly signal?: AbortSignal;
  /** Written to the child's stdin (closed after); without it stdin is /dev/null. */
  readonly input?: string;
}

/** No TypeScript parameter properties: chaos/ runs this file under Node's type stripping, which refuses them. */
export class CommandFailedError extends Error {
  override readonly name = 'CommandFailedError';
  readonly command: string;
  readonly exitCode: number | null;
  readonly stderr: string;
  constructor(command: string, exitCode: number | null, stderr: string) {
    super(`${command} failed (exit ${exitCode ?? 'signal'}): ${stderr.trim().split('\n').slice(-15).join('\n')}`);
    this.command = command;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

export function run(cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      env: opts.env ?? process.env,
      cwd: opts.cwd,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', opts.inheritStderr ? 'inherit' : 'pipe'],
      signal: opts.signal,
    });
    let out = '';
    let err = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new CommandFailedError([cmd, ...args].join(' '), code, err));
    });
  });
}
