// Scaffolded projects for integration tests: runs the built CLI's `init` and `create api` in a temp dir, applies the
// generated CRD, and rewrites the project's watches.yaml with absolute chart paths for startOperator (which runs
// the operator from the repository root). Test-only.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inject } from 'vitest';
import { ROOT } from './operator.js';

const MAIN = join(ROOT, 'dist/cmd/main.js');

export interface Project {
  readonly dir: string;
  /** Runs the CLI in the project dir; throws with its output when it fails. */
  cli(...args: string[]): string;
  /** cli with these environment variables changed (e.g. a KUBECONFIG that reaches no cluster). */
  cliWithEnv(extra: Readonly<Record<string, string>>, ...args: string[]): string;
  /** The project's watches.yaml with every chart path made absolute. */
  watches(): string;
  /** `kubectl <args>` against the test cluster. */
  kubectl(...args: string[]): string;
  remove(): void;
}

export function newProject(prefix: string): Project {
  const cluster = inject('cluster');
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const helm = Object.values(cluster.helms)[0] ?? 'helm';
  const env = {
    ...process.env,
    KUBECONFIG: cluster.kubeconfig,
    HELM_BINARY: helm,
    PATH: `${join(helm, '..')}:${process.env.PATH}`,
  };
  const run = (runEnv: NodeJS.ProcessEnv, args: string[]) => {
    const r = spawnSync(process.execPath, [MAIN, ...args], {
      cwd: dir,
      env: runEnv,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const out = `${r.stdout}${r.stderr}`;
    if (r.status !== 0) throw new Error(`helm-operator ${args.join(' ')} exited ${r.status}:\n${out}`);
    return out;
  };
  return {
    dir,
    cli: (...args) => run(env, args),
    cliWithEnv: (extra, ...args) => run({ ...env, ...extra }, args),
    watches() {
      const text = readFileSync(join(dir, 'watches.yaml'), 'utf8');
      return text.replace(
        /^(\s*chart:\s*)(\S+)\s*$/gm,
        (_m, head: string, path: string) => `${head}${resolve(dir, path)}`,
      );
    },
    kubectl(...args) {
      if (!cluster.kubectl) throw new Error('this test needs kubectl: TEST_CLUSTER=local provides it');
      return execFileSync(cluster.kubectl, args, { cwd: dir, env, encoding: 'utf8' });
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
