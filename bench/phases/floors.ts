// The physical floors for bench/operator-bench.ts: the same releases done directly, without the operator, on the
// same plane, chart and namespace: `helm install/upgrade/uninstall` and `kubectl apply --server-side`/`delete` of the
// rendered manifest, with the operator's concurrency. Called once the operator has stopped; never touches CRs.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { requestWindow } from '../api-requests.ts';
import { cpuWindow } from '../proc.ts';

export interface FloorOptions {
  readonly helm: string;
  readonly kubectl: string;
  readonly kubeconfig: string;
  /** Absolute path of the chart. */
  readonly chart: string;
  readonly namespace: string;
  /** Releases done one at a time (latency of a single release). */
  readonly sequential: readonly string[];
  /** Releases done together, `concurrency` processes at once. */
  readonly bulk: readonly string[];
  readonly concurrency: number;
  /** The value the upgrade sets (the operator's upgrade phase sets the same in the CR's spec). */
  readonly upgrade: Readonly<Record<string, string>>;
  /** Keep helm's client-side OpenAPI validation; false passes --disable-openapi-validation (the API server
   * validates anyway, so that is the physical floor). */
  readonly openApiValidation: boolean;
  readonly apiserverPid: number;
  readonly workDir: string;
  /** PATH for helm and kubectl (nothing else of the bench's environment reaches them). */
  readonly path: string;
  readonly signal: AbortSignal;
  readonly log: (msg: string) => void;
}

/** One bulk loop: wall time, per-release latency from the loop's start, CPU of the tool's processes and the API server. */
export interface FloorRun {
  readonly wallMs: number;
  readonly latencies: number[];
  readonly cpuTool: number;
  readonly cpuApiserver: number;
}
export interface ToolFloors {
  readonly sequential: number[];
  readonly create: FloorRun;
  readonly upgrade: FloorRun;
  readonly remove: FloorRun;
}
export interface Floors {
  readonly helm: ToolFloors;
  readonly kubectl: ToolFloors;
}

const notRun: FloorRun = { wallMs: Number.NaN, latencies: [], cpuTool: Number.NaN, cpuApiserver: Number.NaN };
const toolNotRun: ToolFloors = { sequential: [], create: notRun, upgrade: notRun, remove: notRun };
/** The floors of a run without phase 9 (BENCH_FLOORS=0): every figure shows as '-'. */
export const NO_FLOORS: Floors = { helm: toolNotRun, kubectl: toolNotRun };

type Exec = (args: readonly string[], stdin?: string) => Promise<string>;

function executor(cmd: string, env: NodeJS.ProcessEnv, signal: AbortSignal): Exec {
  return (args, stdin) =>
    new Promise((resolve, reject) => {
      const c = spawn(cmd, args, { env, signal, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
      const out: string[] = [];
      const err: string[] = [];
      c.stdout?.setEncoding('utf8').on('data', (d: string) => out.push(d));
      c.stderr?.setEncoding('utf8').on('data', (d: string) => err.push(d));
      c.on('error', reject);
      c.on('close', (code) =>
        code === 0
          ? resolve(out.join(''))
          : reject(new Error(`${cmd} ${args.join(' ')}: exit ${code}: ${err.join('')}`)),
      );
      if (stdin !== undefined) c.stdin?.end(stdin);
    });
}

/** Runs `task` for each name, `concurrency` at once; latencies are from the start of the loop. */
async function loop(
  names: readonly string[],
  concurrency: number,
  apiserverPid: number,
  task: (name: string) => Promise<unknown>,
): Promise<FloorRun> {
  const w = cpuWindow({ self: 'self', apiserver: apiserverPid });
  const t0 = performance.now();
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    for (let name = names[next++]; name !== undefined; name = names[next++]) {
      await task(name);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, names.length) }, worker));
  const { wallMs, cpu } = w.end();
  return { wallMs, latencies, cpuTool: cpu.self?.children ?? 0, cpuApiserver: cpu.apiserver?.own ?? 0 };
}

async function oneAtATime(names: readonly string[], task: (name: string) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (const name of names) {
    const t0 = performance.now();
    await task(name);
    out.push(performance.now() - t0);
  }
  return out;
}

const PLACEHOLDER = 'zzbenchrelease';

/** helm run directly as the operator runs it: its own homes under `home`, releases in Secrets, one discovery cache.
 * Also the calibration's (bench/calibrate.ts). */
export function directHelmEnv(home: string, kubeconfig: string, path: string): NodeJS.ProcessEnv {
  return {
    PATH: path,
    HOME: home,
    KUBECONFIG: kubeconfig,
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
    HELM_DRIVER: 'secret',
    KUBECACHEDIR: join(home, 'kube-cache'),
    NO_COLOR: '1',
  };
}

/** Measures both floors: helm first, then kubectl, each leaving the namespace as it found it. */
export async function measureFloors(o: FloorOptions): Promise<Floors> {
  const homes = mkdtempSync(join(o.workDir, 'helm-home-'));
  const env = directHelmEnv(homes, o.kubeconfig, o.path);
  // On a failure, the processes still running in other workers are killed too.
  const failed = new AbortController();
  const signal = AbortSignal.any([o.signal, failed.signal]);
  const helm = executor(o.helm, env, signal);
  const kubectl = executor(o.kubectl, env, signal);
  const ns = ['--namespace', o.namespace];
  const validation = o.openApiValidation ? [] : ['--disable-openapi-validation'];
  const set = Object.entries(o.upgrade).flatMap(([k, v]) => ['--set-string', `${k}=${v}`]);
  try {
    o.log(`floors: helm, ${o.sequential.length} one at a time, then ${o.bulk.length} × ${o.concurrency} at once`);
    const install = (n: string) => helm(['install', n, o.chart, ...ns, ...validation]);
    const helmSeq = await oneAtATime(o.sequential, install);
    for (const n of o.sequential) await helm(['uninstall', n, ...ns]);
    const helmInstall = await loop(o.bulk, o.concurrency, o.apiserverPid, install);
    const helmUpgrade = await loop(o.bulk, o.concurrency, o.apiserverPid, (n) =>
      helm(['upgrade', n, o.chart, ...ns, ...validation, ...set]),
    );
    const requests = await requestWindow(() => kubectl(['get', '--raw', '/metrics']));
    const helmUninstall = await loop(o.bulk, o.concurrency, o.apiserverPid, (n) => helm(['uninstall', n, ...ns]));
    const api = await requests.end();
    o.log(
      `floor, helm uninstall: ${api.requests} API requests, ${api.watchEvents} watch events: ${api.lines.slice(0, 16).join(', ')}`,
    );

    // Rendered once (not measured), then named per release: the chart names objects and labels after the release.
    const rendered = await helm(['template', PLACEHOLDER, o.chart, ...ns]);
    const renderedUpgrade = await helm(['template', PLACEHOLDER, o.chart, ...ns, ...set]);
    const manifest = (text: string, n: string) => text.replaceAll(PLACEHOLDER, n);
    const apply = (text: string) => (n: string) =>
      kubectl(['apply', '--server-side', ...ns, '-f', '-'], manifest(text, n));
    const del = (n: string) => kubectl(['delete', ...ns, '-f', '-'], manifest(renderedUpgrade, n));
    o.log(`floors: kubectl apply --server-side, ${o.sequential.length} one at a time, then ${o.bulk.length} at once`);
    const kubectlSeq = await oneAtATime(o.sequential, apply(rendered));
    for (const n of o.sequential) await del(n);
    const kubectlApply = await loop(o.bulk, o.concurrency, o.apiserverPid, apply(rendered));
    const kubectlReapply = await loop(o.bulk, o.concurrency, o.apiserverPid, apply(renderedUpgrade));
    const kubectlDelete = await loop(o.bulk, o.concurrency, o.apiserverPid, del);
    return {
      helm: { sequential: helmSeq, create: helmInstall, upgrade: helmUpgrade, remove: helmUninstall },
      kubectl: { sequential: kubectlSeq, create: kubectlApply, upgrade: kubectlReapply, remove: kubectlDelete },
    };
  } catch (err) {
    failed.abort(err);
    throw err;
  } finally {
    rmSync(homes, { recursive: true, force: true });
  }
}
