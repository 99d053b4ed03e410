// The container tool for the image tests (test/image/): which image and tool hack/image-test.sh chose, this machine's
// extra flags (hack/container-flags.sh), and small wrappers over `podman run/exec/inspect/logs/stop`. Test-only; it
// never builds images (the script does) and removes every container it started.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './operator.js';
import { run } from './run.js';

export interface ImageUnderTest {
  /** The tag hack/image-test.sh built (`IMAGE_TEST_IMAGE`). */
  readonly image: string;
  /** podman (`CONTAINER_TOOL`); buildah builds but does not run detached containers. */
  readonly tool: string;
}

/** The image and tool from the environment; throws naming the variable when the script did not set them. */
export function imageUnderTest(env: NodeJS.ProcessEnv = process.env): ImageUnderTest {
  const image = env.IMAGE_TEST_IMAGE;
  if (!image) throw new Error('IMAGE_TEST_IMAGE is not set: run the image tests through `make image-test`');
  return { image, tool: env.CONTAINER_TOOL || 'podman' };
}

/**
 * Adds a test file's measured figures to the report hack/image-test.sh prints (`IMAGE_TEST_REPORT`, a JSON object):
 * each image test file adds its own, in the order the files ran. Does nothing outside the script.
 */
export function reportFigures(figures: Record<string, string | number>, env: NodeJS.ProcessEnv = process.env): void {
  const report = env.IMAGE_TEST_REPORT;
  if (!report) return;
  const text = existsSync(report) ? readFileSync(report, 'utf8').trim() : '';
  const before = text === '' ? {} : (JSON.parse(text) as Record<string, string | number>);
  writeFileSync(report, `${JSON.stringify({ ...before, ...figures }, null, 2)}\n`);
}

/** The runtime and ulimit flags this machine needs (hack/container-flags.sh), as argv words. */
export async function machineFlags(): Promise<string[]> {
  return (await run('bash', [join(ROOT, 'hack/container-flags.sh')])).trim().split(/\s+/).filter(Boolean);
}

/**
 * `podman run` flags for a pod's shape: host network, a read-only root with only a tmpfs /tmp writable, `uid`, no
 * capabilities, the kubeconfig file mounted read-only, and WATCH_NAMESPACE.
 */
export function podShape(p: {
  readonly uid: number;
  readonly kubeconfig: string;
  readonly namespace: string;
}): string[] {
  return [
    '--network=host',
    '--read-only',
    '--read-only-tmpfs=false',
    '--user',
    String(p.uid),
    '--tmpfs',
    '/tmp:rw,mode=1777,size=512m',
    '--cap-drop=ALL',
    '--security-opt=no-new-privileges',
    '-v',
    `${p.kubeconfig}:/etc/helm-operator/kubeconfig:ro`,
    '-e',
    'KUBECONFIG=/etc/helm-operator/kubeconfig',
    '-e',
    `WATCH_NAMESPACE=${p.namespace}`,
  ];
}

export interface Container {
  readonly id: string;
  exec(args: readonly string[]): Promise<string>;
  logs(): Promise<string>;
  inspect(format: string): Promise<string>;
  /** `stop --time`: SIGTERM, then SIGKILL after `graceSeconds`; resolves once the container exited. */
  stop(graceSeconds: number): Promise<void>;
  remove(): Promise<void>;
}

/** Starts a detached container (`run -d`); `args` go between the flags and the image, `cmd` after it. */
export async function startContainer(
  u: ImageUnderTest,
  args: readonly string[],
  cmd: readonly string[] = [],
): Promise<Container> {
  const id = (await run(u.tool, ['run', '-d', ...(await machineFlags()), ...args, u.image, ...cmd])).trim();
  return containerHandle(u.tool, id);
}

/** Runs a one-off container to completion (`run --rm`) and returns its stdout. */
export async function runOnce(u: ImageUnderTest, args: readonly string[], cmd: readonly string[]): Promise<string> {
  return run(u.tool, ['run', '--rm', ...(await machineFlags()), ...args, u.image, ...cmd]);
}

function containerHandle(tool: string, id: string): Container {
  return {
    id,
    exec: (args) => run(tool, ['exec', id, ...args]),
    logs: async () => {
      // The operator logs JSON lines on stderr: both streams, in one.
      const r = spawnSync(tool, ['logs', id], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      return `${r.stdout ?? ''}${r.stderr ?? ''}`;
    },
    inspect: async (format) => (await run(tool, ['inspect', '--format', format, id])).trim(),
    stop: async (graceSeconds) => {
      await run(tool, ['stop', '--time', String(graceSeconds), id]);
    },
    remove: async () => {
      await run(tool, ['rm', '--force', '--time', '0', id]).catch(() => undefined);
    },
  };
}
