// The one starter of a local control plane (hack/testenv.sh up) for the integration tests' global setup, chaos/ and
// bench/: started with a watchdog on this process (TESTENV_WATCH_PID: the plane stops if we are killed), its env
// file read back, and stop() (hack/testenv.sh down). Never starts a second plane on its own; never touches one it did
// not start.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './run.ts';

export interface LocalPlane {
  /** The plane's folder: kubeconfig, env, PIDs, logs. */
  readonly dir: string;
  readonly kubeconfig: string;
  /** The testenv bin folder (kubectl, helm-v3, helm-v4, …). */
  readonly bin: string;
  /** The env file testenv wrote (KUBECONFIG, TESTENV_BIN, TESTENV_NODES, …). */
  readonly env: Readonly<Record<string, string>>;
  /** Fake nodes Ready on the plane (up.sh waited for them). */
  readonly nodes: number;
  stop(): Promise<void>;
}

export interface StartPlaneOptions {
  /** The repository root (hack/testenv.sh). */
  readonly root: string;
  /** The environment for testenv (TESTENV_BIN, TESTENV_NODES, …). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** testenv's progress to our stderr. @default false */
  readonly inheritStderr?: boolean;
}

export async function startLocalPlane(o: StartPlaneOptions): Promise<LocalPlane> {
  const testenv = join(o.root, 'hack/testenv.sh');
  const env = { ...(o.env ?? process.env), TESTENV_WATCH_PID: String(process.pid) };
  const inheritStderr = o.inheritStderr ?? false;
  const dir = (await run('bash', [testenv, 'up'], { env, inheritStderr })).trim().split('\n').pop() ?? '';
  const file = Object.fromEntries(
    readFileSync(join(dir, 'env'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  return {
    dir,
    kubeconfig: file.KUBECONFIG ?? join(dir, 'kubeconfig'),
    bin: file.TESTENV_BIN ?? '',
    env: file,
    nodes: Number(file.TESTENV_NODES ?? '0'),
    stop: async () => {
      await run('bash', [testenv, 'down', dir], { env, inheritStderr });
    },
  };
}
