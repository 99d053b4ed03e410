// What the host sees of an operator pod on the real node: its container's memory cgroup (peak usage, limit) and its
// processes, and a rule in the pod's own network namespace (nsenter into a container process' netns, iptables there,
// never on the host), and the kernel's OOM kill of the container at a chosen moment (case 3). Used by the node
// group's cases 3 and 5; writes only the cgroup and oom_score_adj of the container it strikes, and removes every rule
// it adds.
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../../test/support/run.ts';

const MEMORY = '/sys/fs/cgroup/memory';

/** The container's memory cgroup folder (cgroup v1, cgroupfs driver: kubepods/<qos>/pod<uid>/<container id>). */
export function containerCgroup(podUid: string, containerId: string): string | undefined {
  const id = containerId.replace(/^containerd:\/\//, '');
  for (const qos of ['', 'burstable', 'besteffort']) {
    const dir = join(MEMORY, 'kubepods', qos, `pod${podUid}`, id);
    if (existsSync(dir)) return dir;
  }
  return undefined;
}

export function cgroupPids(dir: string): number[] {
  return readFileSync(join(dir, 'cgroup.procs'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map(Number);
}

/** Peak memory the container's cgroup charged (max_usage_in_bytes: RSS and page cache of the operator and its helm). */
export function cgroupPeakBytes(dir: string): number {
  return Number(readFileSync(join(dir, 'memory.max_usage_in_bytes'), 'utf8').trim());
}

/** A process' peak resident set (VmHWM), in bytes; 0 once it is gone. */
export function peakRss(pid: number): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The container's operator process (`node … helm-operator run …`; its comm is Node's `MainThread`), not helm. */
export function operatorPid(dir: string): number | undefined {
  return cgroupPids(dir).find((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv.some((a) => a.endsWith('/helm-operator') || a.endsWith('/main.js'));
    } catch {
      return false;
    }
  });
}

/** The memory cgroup folders of a pod's containers on the node now (its sandbox's included). */
export function podContainerDirs(podUid: string): string[] {
  for (const qos of ['', 'burstable', 'besteffort']) {
    const dir = join(MEMORY, 'kubepods', qos, `pod${podUid}`);
    if (!existsSync(dir)) continue;
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(dir, d.name));
  }
  return [];
}

/** The cgroup's memory limit, in bytes. */
export function cgroupLimitBytes(dir: string): number {
  return Number(readFileSync(join(dir, 'memory.limit_in_bytes'), 'utf8').trim());
}

/** The helm installs and upgrades running in the cgroup (`helm install|upgrade RELEASE …`, not a `--dry-run`). */
export function helmWrites(dir: string): { pid: number; release: string }[] {
  return cgroupPids(dir).flatMap((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const helm = (argv[0] ?? '').split('/').at(-1)?.startsWith('helm') === true;
      const write = ['install', 'upgrade'].includes(argv[1] ?? '') && !argv.some((a) => a.startsWith('--dry-run'));
      return helm && write ? [{ pid, release: argv[2] ?? '' }] : [];
    } catch {
      return [];
    }
  });
}

/**
 * Makes the kernel OOM-kill the container's operator process `pid` now. The cgroup's limit is lowered to what the
 * container holds after reclaim (first a limit it cannot reach: the kernel reclaims what it can, then refuses with
 * EBUSY; then the usage left), so that its next charge finds no room and the memory cgroup's OOM killer runs. The
 * operator's oom_score_adj is raised to 1000 first, so that the killer picks it among the container's processes
 * rather than a helm child that may hold more memory under a low limit (on a real node the kubelet gives both a
 * burstable pod's score, about 995; this node clamps them to 0: restrict_oom_score_adj). Raising it needs no
 * CAP_SYS_RESOURCE. Throws when the limit cannot be set.
 */
export function oomKillNow(dir: string, pid: number): void {
  writeFileSync(`/proc/${pid}/oom_score_adj`, '1000');
  const limit = join(dir, 'memory.limit_in_bytes');
  try {
    writeFileSync(limit, '1');
  } catch {
    // EBUSY: reclaimed what it could; what is left is in use
  }
  for (let i = 0; i < 100; i++) {
    try {
      writeFileSync(limit, readFileSync(join(dir, 'memory.usage_in_bytes'), 'utf8').trim());
      return;
    } catch {
      // it grew between the read and the write
    }
  }
  throw new Error(`could not lower the memory limit of ${dir} to its usage`);
}

/** A DROP rule for `dest` (the API server's ClusterIP) in the network namespace of `pid`; returns its removal. */
export async function cutInNetns(pid: number, dest: string): Promise<() => Promise<void>> {
  const rule = ['-d', dest, '-p', 'tcp', '-j', 'DROP'];
  await run('nsenter', ['-t', String(pid), '-n', 'iptables', '-w', '-I', 'OUTPUT', ...rule]);
  return async () => {
    await run('nsenter', ['-t', String(pid), '-n', 'iptables', '-w', '-D', 'OUTPUT', ...rule]);
  };
}

/** The network namespace of `pid` (`net:[inode]`), to show the rule went into the pod's and not the host's. */
export function netnsOf(pid: number | 'self'): string {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return '';
  }
}
