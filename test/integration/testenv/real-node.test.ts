// The real node of `TESTENV_NODES=real hack/testenv.sh up` (kubelet, containerd, runc, CNI bridge, kube-proxy): it is
// Ready when `up` returns, `hack/testenv.sh load-image` puts a podman image into its containerd, a pod runs on it,
// and `down` leaves nothing behind (processes, mounts, bridge, KUBE-* iptables chains, kubepods cgroups).
// Opt-in, because it needs root and takes the machine's one real node: TESTENV_REAL_NODE_TEST=1. (Not gated on
// TESTENV_NODES=real: the integration project's global setup reads TESTENV_NODES as its kwok node count.) Skipped,
// saying why, otherwise, and with hack/testenv/node-check.sh's reason where the machine cannot run a node.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { run } from '../../support/run.js';

const { testenvBin } = inject('cluster');
const HACK = resolve(import.meta.dirname, '../../../hack');
const TESTENV = join(HACK, 'testenv.sh');

function skipReason(): string | undefined {
  if (process.env.TESTENV_REAL_NODE_TEST !== '1') return 'opt-in: set TESTENV_REAL_NODE_TEST=1 (root, one real node)';
  if (!testenvBin) return 'needs the local control plane (TEST_CLUSTER=local)';
  const check = spawnSync('bash', [join(HACK, 'testenv/node-check.sh')], { encoding: 'utf8' });
  return check.status === 0 ? undefined : check.stderr.trim();
}
const skip = skipReason();

function sh(cmd: string): string {
  return spawnSync('bash', ['-c', cmd], { encoding: 'utf8' }).stdout;
}

describe.skipIf(skip !== undefined)(`the real node of hack/testenv.sh${skip ? ` (SKIPPED: ${skip})` : ''}`, () => {
  it('is Ready on `up`, runs a pod from a loaded image, and `down` leaves nothing behind', {
    timeout: 900_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'testenv-real-node-'));
    const env = { ...process.env, TESTENV_BIN: testenvBin, TESTENV_NODES: 'real' };
    try {
      await run('bash', [TESTENV, 'up', dir], { env });
      const file = readFileSync(join(dir, 'env'), 'utf8');
      const node = /^TESTENV_REAL_NODE=(.*)$/m.exec(file)?.[1] ?? '';
      console.log(`real node ${node}: Ready ${/^TESTENV_NODE_STARTUP_MS=(.*)$/m.exec(file)?.[1]}ms after its start`);
      const pause = readFileSync(join(/^TESTENV_NODE_BIN=(.*)$/m.exec(file)?.[1] ?? '', 'pause.image'), 'utf8').trim();
      await run('bash', [TESTENV, 'load-image', pause, dir], { env });
      const kubectl = (...args: string[]) =>
        run(join(testenvBin ?? '', 'kubectl'), [`--kubeconfig=${join(dir, 'kubeconfig')}`, ...args]);
      await kubectl('run', 'real-pod', `--image=${pause}`, '--image-pull-policy=Never');
      await kubectl('wait', '--for=condition=Ready', 'pod/real-pod', '--timeout=120s');
      const where = await kubectl('get', 'pod', 'real-pod', '-o', 'jsonpath={.spec.nodeName} {.status.podIP}');
      expect(where).toMatch(new RegExp(`^${node} 10\\.77\\.0\\.\\d+$`));

      await run('bash', [TESTENV, 'down', dir], { env });
      expect(existsSync(dir)).toBe(false);
      expect(sh(`ps -eo stat=,args= | grep -v '^Z' | grep -F -- ${JSON.stringify(dir)} | grep -v grep`)).toBe('');
      expect(sh(`grep -F -- ${JSON.stringify(dir)} /proc/self/mountinfo`)).toBe('');
      expect(sh('ip -o link show tenv0 2>/dev/null')).toBe('');
      expect(sh('for t in filter nat mangle; do iptables -t $t -S; done | grep -E "KUBE-|10\\.77\\.0\\."')).toBe('');
      expect(sh('ls -d /sys/fs/cgroup/*/kubepods 2>/dev/null')).toBe('');
    } finally {
      if (existsSync(dir)) await run('bash', [TESTENV, 'down', dir], { env }).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
