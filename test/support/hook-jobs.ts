// Evidence that helm hooks ran, for the hooks integration tests: JobLog, a watch on a namespace's Jobs that keeps each
// Job's runs (seen, Complete/Failed, DELETED, in order) even when a hook Job is deleted within a second, and
// hookPhases(), each hook's last-run phase as helm stored it in a release revision's Secret.
import { gunzipSync } from 'node:zlib';
import { KubeConfig, type V1Job, Watch } from '@kubernetes/client-node';
import type { TestKube } from './kube.js';

/** One Job object (by uid) as a watch saw it. */
export interface JobRun {
  readonly uid: string;
  /** Order of the first event seen for it, and of its Complete/Failed and DELETED events, across all Jobs. */
  readonly seenAt: number;
  completedAt?: number;
  failedAt?: number;
  deletedAt?: number;
}

/**
 * Every Job of a namespace, by name, as a watch saw them from the start: a hook Job that completed and was deleted
 * within a second still leaves its Complete and DELETED events here. Restarts the watch if the server ends it.
 */
export class JobLog {
  readonly #runs = new Map<string, JobRun[]>();
  #seq = 0;
  #abort: AbortController | undefined;
  #stopped = false;
  #resourceVersion: string | undefined;

  async start(kubeconfig: string, namespace: string): Promise<void> {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const watch = new Watch(kc);
    const path = `/apis/batch/v1/namespaces/${namespace}/jobs`;
    const open = async (): Promise<void> => {
      const query = this.#resourceVersion ? { resourceVersion: this.#resourceVersion } : {};
      this.#abort = await watch.watch(
        path,
        query,
        (type: string, job: V1Job) => this.#record(type, job),
        () => {
          if (!this.#stopped) void open();
        },
      );
    };
    await open();
  }

  stop(): void {
    this.#stopped = true;
    this.#abort?.abort();
  }

  #record(type: string, job: V1Job): void {
    const name = job.metadata?.name ?? '';
    const uid = job.metadata?.uid ?? '';
    this.#resourceVersion = job.metadata?.resourceVersion ?? this.#resourceVersion;
    const runs = this.#runs.get(name) ?? [];
    this.#runs.set(name, runs);
    let run = runs.find((r) => r.uid === uid);
    if (!run) {
      run = { uid, seenAt: ++this.#seq };
      runs.push(run);
    }
    const has = (t: string) => job.status?.conditions?.some((c) => c.type === t && c.status === 'True') ?? false;
    if (has('Complete')) run.completedAt ??= ++this.#seq;
    if (has('Failed')) run.failedAt ??= ++this.#seq;
    if (type === 'DELETED') run.deletedAt ??= ++this.#seq;
  }

  /** The Jobs of that name, oldest first. */
  runs(name: string): readonly JobRun[] {
    return this.#runs.get(name) ?? [];
  }

  /** A summary for assertions: per run, "complete"/"failed"/"running", and "+deleted". */
  states(name: string): string[] {
    return this.runs(name).map(
      (r) =>
        (r.completedAt ? 'complete' : r.failedAt ? 'failed' : 'running') +
        (r.deletedAt === undefined ? '' : '+deleted'),
    );
  }
}

export interface HookRecord {
  readonly name: string;
  readonly kind: string;
  readonly events: readonly string[];
  readonly last_run?: { readonly phase?: string };
}

/** The hooks that helm stored in a release revision, with their last run's phase ("" = never ran): name → phase. */
export async function hookPhases(kube: TestKube, namespace: string, release: string, revision: number) {
  const secret = await kube.core.readNamespacedSecret({
    name: `sh.helm.release.v1.${release}.v${revision}`,
    namespace,
  });
  const payload = Buffer.from(secret.data?.release ?? '', 'base64').toString('latin1');
  const json = JSON.parse(gunzipSync(Buffer.from(payload, 'base64')).toString('utf8')) as { hooks?: HookRecord[] };
  return Object.fromEntries((json.hooks ?? []).map((h) => [`${h.kind}/${h.name}`, h.last_run?.phase ?? '']));
}
