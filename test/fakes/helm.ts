// The one fake helm for unit tests: a HelmCli that records every call and answers only what the test scripted
// (anything else throws HelmNotScriptedError), plus ReleaseHistory, Helm's release records in memory,
// helmWithHistory(), which scripts install/upgrade/uninstall/rollback to keep that history, and releaseRecord(), one
// decoded record. Test-only; spawns nothing.

import { HelmCommandError, type HelmCommandFailure } from '../../src/helm/errors.js';
import type {
  AppliedRelease,
  CreateParams,
  DependencyBuildParams,
  DryRunUpgradeParams,
  HelmCallOptions,
  HelmCli,
  HelmVersion,
  InstallParams,
  PullParams,
  Release,
  ReleaseChart,
  ReleaseStatus,
  RollbackParams,
  TemplateParams,
  UninstallParams,
  UpgradeParams,
} from '../../src/helm/types.js';

export const HELM_V3: HelmVersion = { version: 'v3.22.0', major: 3, minor: 22 };
export const HELM_V4: HelmVersion = { version: 'v4.3.1', major: 4, minor: 3 };

/** A decoded release record: revision 1 of `web` in `apps`, deployed, chart nginx 0.1.0, an empty manifest. */
export function releaseRecord(more: Partial<Release> = {}): Release {
  const base = { name: 'web', namespace: 'apps', version: 1, info: { status: 'deployed' as const } };
  return { ...base, chart: { name: 'nginx', version: '0.1.0' }, manifest: '', ...more };
}

/** Each command's parameters and answer. */
export interface HelmCommands {
  version: [HelmCallOptions, HelmVersion];
  install: [InstallParams, AppliedRelease];
  upgrade: [UpgradeParams, AppliedRelease];
  dryRunUpgrade: [DryRunUpgradeParams, Release];
  uninstall: [UninstallParams, undefined];
  rollback: [RollbackParams, undefined];
  template: [TemplateParams, string];
  create: [CreateParams, undefined];
  pull: [PullParams, undefined];
  dependencyBuild: [DependencyBuildParams, undefined];
}
export type HelmCommand = keyof HelmCommands;
// biome-ignore lint/suspicious/noConfusingVoidType: a void command may be answered by any statement, e.g. `() => history.clear()`.
type Answered<C extends HelmCommand> = HelmCommands[C][1] extends undefined ? void : HelmCommands[C][1];
export type HelmAnswer<C extends HelmCommand> = (params: HelmCommands[C][0]) => Answered<C> | Promise<Answered<C>>;

export interface HelmCall<C extends HelmCommand = HelmCommand> {
  readonly command: C;
  readonly params: HelmCommands[C][0];
}

/** A call the test did not script: the fake never guesses an answer. */
export class HelmNotScriptedError extends Error {
  readonly code = 'FAKE_HELM_NOT_SCRIPTED';
  constructor(readonly command: HelmCommand) {
    super(`fake helm: ${command} was not scripted`);
    this.name = 'HelmNotScriptedError';
  }
}

type AnyAnswer = (params: never) => unknown;

export class FakeHelm implements HelmCli {
  readonly calls: HelmCall[] = [];
  readonly #always = new Map<HelmCommand, AnyAnswer>();
  readonly #next = new Map<HelmCommand, AnyAnswer[]>();
  readonly #listeners: Array<(call: HelmCall) => void> = [];

  /** Answers every `command` call with `answer` (replacing an earlier one). */
  on<C extends HelmCommand>(command: C, answer: HelmAnswer<C>): this {
    this.#always.set(command, answer as AnyAnswer);
    return this;
  }

  /** Answers only the next `command` call with `answer` (queued, and ahead of `on`). */
  once<C extends HelmCommand>(command: C, answer: HelmAnswer<C>): this {
    const queue = this.#next.get(command) ?? [];
    queue.push(answer as AnyAnswer);
    this.#next.set(command, queue);
    return this;
  }

  /** The next `command` call runs `before` (e.g. records a failed revision) and then throws `err`. */
  failNext(command: HelmCommand, err: Error, before: (params: never) => void = () => undefined): this {
    return this.once(command, (params) => {
      before(params as never);
      throw err;
    });
  }

  /** Runs `listener` at every call, before its answer (to log calls in order with other fakes' writes). */
  onCall(listener: (call: HelmCall) => void): this {
    this.#listeners.push(listener);
    return this;
  }

  /** The parameters of every `command` call, in order. */
  callsOf<C extends HelmCommand>(command: C): HelmCommands[C][0][] {
    return this.calls.filter((c) => c.command === command).map((c) => c.params as HelmCommands[C][0]);
  }

  version(call: HelmCallOptions): Promise<HelmVersion> {
    return this.#answer('version', call);
  }
  install(params: InstallParams): Promise<AppliedRelease> {
    return this.#answer('install', params);
  }
  upgrade(params: UpgradeParams): Promise<AppliedRelease> {
    return this.#answer('upgrade', params);
  }
  dryRunUpgrade(params: DryRunUpgradeParams): Promise<Release> {
    return this.#answer('dryRunUpgrade', params);
  }
  uninstall(params: UninstallParams): Promise<void> {
    return this.#answer('uninstall', params);
  }
  rollback(params: RollbackParams): Promise<void> {
    return this.#answer('rollback', params);
  }
  template(params: TemplateParams): Promise<string> {
    return this.#answer('template', params);
  }
  create(params: CreateParams): Promise<void> {
    return this.#answer('create', params);
  }
  pull(params: PullParams): Promise<void> {
    return this.#answer('pull', params);
  }
  dependencyBuild(params: DependencyBuildParams): Promise<void> {
    return this.#answer('dependencyBuild', params);
  }

  async #answer<C extends HelmCommand>(command: C, params: HelmCommands[C][0]): Promise<HelmCommands[C][1]> {
    const call: HelmCall = { command, params };
    this.calls.push(call);
    for (const listener of this.#listeners) listener(call);
    params.signal.throwIfAborted();
    const answer = this.#next.get(command)?.shift() ?? this.#always.get(command);
    if (answer === undefined) throw new HelmNotScriptedError(command);
    return (await (answer as (p: unknown) => unknown)(params)) as HelmCommands[C][1];
  }
}

/** One revision in Helm's storage: the release and the labels on its record (StoredRelease's shape). */
export interface HistoryEntry {
  readonly release: Release;
  readonly labels: Readonly<Record<string, string>>;
}

export interface ReleaseHistoryOptions {
  /** @default { name: 'nginx', version: '0.1.0' } */
  readonly chart?: ReleaseChart;
  /** The notes of a deployed revision. @default none */
  readonly notes?: string;
  /** The manifest of revision `version`. @default `manifest v<version>` */
  readonly manifestOf?: (version: number) => string;
}

type ReleaseParams = InstallParams | UpgradeParams;

/** Helm's release records of one release, in memory, oldest first. */
export class ReleaseHistory {
  /** The live list (the reconciler's history port may hand it out as is, or `list()` for a copy). */
  readonly revisions: HistoryEntry[] = [];
  readonly #o: ReleaseHistoryOptions;

  constructor(options: ReleaseHistoryOptions = {}) {
    this.#o = options;
  }

  /** A copy, as reading the release Secrets gives. */
  list(): HistoryEntry[] {
    return [...this.revisions];
  }

  /** Supersedes the deployed revision and records a new one (with `p.labels`); returns it as helm's output. */
  record(p: ReleaseParams, status: ReleaseStatus = 'deployed'): Release {
    this.#supersede();
    const version = this.revisions.length + 1;
    const release: Release = {
      name: p.release,
      namespace: p.namespace,
      version,
      info: { status, ...(this.#o.notes === undefined ? {} : { notes: this.#o.notes }) },
      chart: this.#o.chart ?? { name: 'nginx', version: '0.1.0' },
      config: {},
      manifest: this.#o.manifestOf?.(version) ?? `manifest v${version}`,
    };
    this.revisions.push({ release, labels: { ...(p.labels ?? {}) } });
    const { config: _config, ...output } = release;
    return output;
  }

  /** Records a failed revision without labels, as helm does when an install/upgrade fails past rendering. */
  recordFailed(p: ReleaseParams, manifest = 'broken'): void {
    const version = this.revisions.length + 1;
    const chart = this.#o.chart ?? { name: 'nginx', version: '0.1.0' };
    const release: Release = {
      name: p.release,
      namespace: p.namespace,
      version,
      info: { status: 'failed' },
      chart,
      config: {},
      manifest,
    };
    this.revisions.push({ release, labels: {} });
  }

  /** `helm rollback`: a new deployed revision copying `p.revision` (its labels too); throws for an unknown one. */
  rollback(p: RollbackParams): void {
    const target = this.revisions.find((h) => h.release.version === p.revision);
    if (!target) throw new Error('no such revision');
    this.#supersede();
    const version = this.revisions.length + 1;
    this.revisions.push({
      release: { ...target.release, version, info: { status: 'deployed' } },
      labels: target.labels,
    });
  }

  /** `helm uninstall`: every record is gone. */
  clear(): void {
    this.revisions.length = 0;
  }

  #supersede(): void {
    for (const [i, h] of this.revisions.entries())
      if (h.release.info.status === 'deployed')
        this.revisions[i] = { ...h, release: { ...h.release, info: { ...h.release.info, status: 'superseded' } } };
  }
}

/** A fake helm whose install/upgrade/uninstall/rollback keep `history` and whose version is helm 3. */
export function helmWithHistory(options: ReleaseHistoryOptions = {}): { helm: FakeHelm; history: ReleaseHistory } {
  const history = new ReleaseHistory(options);
  const helm = new FakeHelm()
    .on('version', () => HELM_V3)
    .on('install', (p) => history.record(p))
    .on('upgrade', (p) => history.record(p))
    .on('uninstall', () => history.clear())
    .on('rollback', (p) => history.rollback(p));
  return { helm, history };
}

/**
 * helm exiting 1 with `stderr` for `command` of release apps/web (the fakes' default release), as the CLI adapter
 * reports it; `failure` overrides any field (release, namespace, timedOut, …).
 */
export function helmCommandError(
  command: string,
  stderr: string,
  failure: Partial<HelmCommandFailure> = {},
): HelmCommandError {
  return new HelmCommandError({
    command,
    release: 'web',
    namespace: 'apps',
    args: [command],
    exitCode: 1,
    signal: undefined,
    stderr,
    canceled: false,
    timedOut: false,
    forceKilled: false,
    ...failure,
  });
}
