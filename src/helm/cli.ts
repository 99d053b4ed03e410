// The helm CLI adapter: runs the real `helm` binary (install, upgrade, uninstall, rollback, version; template, create,
// pull and dependency build for the scaffolder) and turns its output and failures into typed results and errors.
// Called by the reconciler and the scaffolder; starts helm through process.ts only. Never puts values on argv, in
// logs or in errors (they travel in a 0600 temp file), and never reads process.env.
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.js';
import {
  createArgs,
  dependencyBuildArgs,
  installArgs,
  pullArgs,
  rollbackArgs,
  templateArgs,
  uninstallArgs,
  upgradeArgs,
  versionArgs,
} from './argv.js';
import { createHelmHomes, type HelmRateLimit, userHelmEnv } from './env.js';
import { HelmCommandError, type HelmCommandFailure, HelmNotFoundError } from './errors.js';
import { parseHelmVersion, parseRelease, tail, uninstalledLines, uninstallProgress } from './output.js';
import { ProcessFailure, runProcess } from './process.js';
import { redact, redactArgs, scrubbedCause, secretsOf, urlSecrets, VALUES_PLACEHOLDER } from './redact.js';
import { DEFAULT_HELM_TIMEOUT_MS, HELM_TIMEOUT_MARGIN_MS } from './timeout.js';
import type { HelmCallOptions, HelmCli, HelmValues, HelmVersion, PostRenderer, ReleaseParams } from './types.js';
import { versionFlags } from './version-flags.js';
import { appliedRelease } from './warnings.js';

export interface HelmCliOptions {
  /** Path or name (resolved on `env.PATH`) of the helm binary. */
  binary: string;
  /** Kubeconfig file for helm, passed as KUBECONFIG in the child's env, never on argv. @default in-cluster / env */
  kubeconfig?: string;
  /**
   * Operator-private directory: each client creates its own HELM_CACHE_HOME, HELM_CONFIG_HOME and HELM_DATA_HOME
   * under `helm-XXXXXX/` (mode 0700), the shared discovery cache `kube-cache/`, and short-lived values files.
   */
  workDir: string;
  /** Revisions kept per release (`--history-max`, HELM_MAX_HISTORY). @default 10 */
  historyMax?: number;
  /**
   * Per helm process of a call without its own `timeoutMs`; on expiry helm gets SIGTERM, then SIGKILL after
   * `killGraceMs`. @default 330_000: `timeoutMarginMs` after helm's own `--timeout` (5m, for hooks and waits), so
   * that helm reports its timeout ("timed out waiting for the condition", naming the hook) instead of being cut off
   * mid-wait with "context canceled". A call with `timeoutMs` passes `--timeout` and is stopped that margin after it.
   */
  timeoutMs?: number;
  /** How long after a call's `--timeout` its helm process is stopped. @default 30_000 (HELM_TIMEOUT_MARGIN_MS) */
  timeoutMarginMs?: number;
  /** On abort or timeout, wait this long after SIGTERM before SIGKILL. @default 30_000 */
  killGraceMs?: number;
  /** Base environment of every helm child (HELM_* variables are dropped, see helmEnv). @default {} */
  env?: Record<string, string | undefined>;
  /** Called with the (redacted) argv just before each helm process starts: metrics and tests. */
  onSpawn?: (args: readonly string[]) => void;
  /**
   * The post-renderer that install and upgrade run: an executable and its leading arguments (each call appends
   * its own `postRenderArgs`). helm 3 runs it as `--post-renderer`; for helm 4 the client installs it as the
   * postrenderer/v1 plugin POST_RENDER_PLUGIN in its own plugin directory. @default none
   */
  postRenderer?: PostRenderer;
  /**
   * helm's major version, probed once at startup by the composition root (`version()` on a client made without it,
   * then checkHelmVersion): it picks the post-renderer form and `--force-conflicts`. Install and upgrade throw a
   * ConfigError without it; the other commands do not need it. @default none
   */
  major?: number;
  /**
   * true (the operator): private helm homes under workDir, HELM_* variables dropped, release storage pinned to
   * Secrets. false (the scaffolder, `create api`): `env` is passed as it is, so helm uses the user's own
   * repositories.yaml, registry logins and caches; no homes are created. @default true
   */
  isolated?: boolean;
  /**
   * helm's own client-side API rate limit (HELM_QPS, HELM_BURST_LIMIT; a HELM_QPS or HELM_BURST_LIMIT in `env`
   * wins). The operator passes its kube client's (--kube-api-qps; none by default). @default helm's: 5 QPS after a
   * burst of 100, which a batch uninstall of many releases would wait on
   */
  rateLimit?: HelmRateLimit;
  /** false: install and upgrade pass `--disable-openapi-validation` (the API server validates). @default true */
  openApiValidation?: boolean;
}

const STDERR_TAIL_CHARS = 4096;
/** What a helm process printed; stderr of a successful run carries the API server's warnings. */
type Output = { readonly stdout: string; readonly stderr: string };

interface RunContext extends HelmCallOptions {
  /** The call's helm `--timeout`: the process is stopped `timeoutMarginMs` after it. */
  readonly helmTimeoutMs?: number | undefined;
  readonly release?: string;
  readonly namespace?: string;
  readonly valuesFile?: string;
  readonly secrets: readonly string[];
  /** Strings hidden in the argv shown in errors and to onSpawn (passwords in repository URLs). */
  readonly argSecrets?: readonly string[];
  /** Each line of stdout as helm prints it (a batch uninstall's progress). */
  readonly onStdoutLine?: ((line: string) => void) | undefined;
  /** A batch uninstall: what the failure says it did, read from stdout (which is otherwise never kept). */
  readonly progress?: (stdout: string) => Pick<HelmCommandFailure, 'release' | 'uninstalled'>;
}

export function createHelmCli(options: HelmCliOptions): HelmCli {
  const historyMax = checkInt('historyMax', options.historyMax ?? 10, 0);
  const marginMs = checkInt('timeoutMarginMs', options.timeoutMarginMs ?? HELM_TIMEOUT_MARGIN_MS, 0);
  const timeoutMs = checkInt('timeoutMs', options.timeoutMs ?? DEFAULT_HELM_TIMEOUT_MS + marginMs, 1);
  const killGraceMs = checkInt('killGraceMs', options.killGraceMs ?? 30_000, 1);
  const major = options.major === undefined ? undefined : checkInt('major', options.major, 1);
  const validation = { disableOpenApiValidation: options.openApiValidation === false };
  let childEnv: Promise<Record<string, string>> | undefined;

  /** Creates this client's helm homes once (retried after a failure) and returns the child environment. */
  const prepare = (): Promise<Record<string, string>> => {
    if (options.isolated === false) {
      childEnv ??= Promise.resolve(userHelmEnv({ base: options.env ?? {}, kubeconfig: options.kubeconfig }));
      return childEnv;
    }
    const { workDir, env: base = {}, kubeconfig, postRenderer, rateLimit } = options;
    childEnv ??= createHelmHomes({ workDir, base, kubeconfig, historyMax, postRenderer, rateLimit }).catch(
      (err: unknown) => {
        childEnv = undefined;
        throw err;
      },
    );
    return childEnv;
  };

  async function run(command: string, args: readonly string[], ctx: RunContext): Promise<Output> {
    const shownArgs = redactArgs(args, ctx.valuesFile).map((a) => redact(a, ctx.argSecrets ?? []));
    const failure = { command, release: ctx.release, namespace: ctx.namespace, args: shownArgs };
    if (ctx.signal.aborted) {
      const stopped = { exitCode: undefined, signal: undefined, stderr: '', timedOut: false, forceKilled: false };
      throw new HelmCommandError({ ...failure, ...stopped, canceled: true }, { cause: ctx.signal.reason });
    }
    const env = await prepare();
    options.onSpawn?.(shownArgs);
    try {
      return await runProcess(options.binary, args, {
        env,
        signal: ctx.signal,
        killGraceMs,
        timeoutMs: ctx.helmTimeoutMs === undefined ? timeoutMs : Math.ceil(ctx.helmTimeoutMs) + marginMs,
        onStdoutLine: ctx.onStdoutLine,
      });
    } catch (err) {
      if (!(err instanceof ProcessFailure)) throw err;
      const file = ctx.valuesFile;
      const scrub = (text: string): string =>
        redact(file === undefined ? text : text.split(file).join(VALUES_PLACEHOLDER), ctx.secrets);
      // Redact a generous tail first so that a secret straddling the 4 KiB cut is still caught whole.
      const rawTail = tail(err.stderr, 16 * STDERR_TAIL_CHARS);
      const stderr = tail(scrub(rawTail), STDERR_TAIL_CHARS);
      const cause = scrubbedCause(err, scrub, stderr);
      if (err.code === 'ENOENT' && err.exitCode === undefined) {
        throw new HelmNotFoundError(options.binary, { cause });
      }
      throw new HelmCommandError(
        {
          ...failure,
          exitCode: err.exitCode,
          signal: err.signal,
          stderr,
          canceled: err.canceled,
          timedOut: err.timedOut,
          forceKilled: err.forceKilled,
          ...ctx.progress?.(err.stdout),
        },
        { cause },
      );
    }
  }

  /**
   * Values go through a file rather than `--values -` on stdin: every supported helm reads files the same way, a
   * helm that fails before reading stdin cannot turn the write into EPIPE noise that hides its real error, and
   * stdin stays free. The file (a random name in the operator-private workDir) is created 0600 with `wx`, and is
   * removed in `finally` whatever happens (success, helm failure, abort, timeout).
   */
  async function withValuesFile<T>(values: HelmValues, fn: (valuesFile: string) => Promise<T>): Promise<T> {
    await prepare();
    const valuesFile = join(options.workDir, `values-${randomUUID()}.yaml`);
    try {
      await writeFile(valuesFile, JSON.stringify(values), { mode: 0o600, flag: 'wx' });
      return await fn(valuesFile);
    } finally {
      await rm(valuesFile, { force: true });
    }
  }

  /** What redaction must never hide: the release, its namespace and the names the caller gives (the chart's). */
  const namesOf = (p: ReleaseParams): string[] => [p.release, p.namespace, ...(p.names ?? [])];

  const ctxOf = (p: ReleaseParams, secrets: readonly string[], valuesFile?: string): RunContext => ({
    signal: p.signal,
    helmTimeoutMs: p.timeoutMs,
    release: p.release,
    namespace: p.namespace,
    secrets,
    ...(valuesFile === undefined ? {} : { valuesFile }),
  });

  async function version({ signal }: HelmCallOptions): Promise<HelmVersion> {
    return parseHelmVersion((await run('version', versionArgs(), { signal, secrets: [] })).stdout);
  }

  const flags = versionFlags({ major, postRenderer: options.postRenderer });

  return {
    version,
    install(p) {
      return withValuesFile(p.values, async (valuesFile) => {
        const args = installArgs({ ...p, valuesFile, ...flags.apply('install', p), ...validation });
        const secrets = secretsOf(p.values, p.secrets, namesOf(p));
        return appliedRelease(await run('install', args, ctxOf(p, secrets, valuesFile)), 'install', p, secrets);
      });
    },
    upgrade(p) {
      return withValuesFile(p.values, async (valuesFile) => {
        const args = upgradeArgs({
          ...p,
          valuesFile,
          historyMax,
          ...flags.apply('upgrade', p),
          ...flags.force('upgrade', p.force, p.clientSideApply),
          ...validation,
        });
        const secrets = secretsOf(p.values, p.secrets, namesOf(p));
        return appliedRelease(await run('upgrade', args, ctxOf(p, secrets, valuesFile)), 'upgrade', p, secrets);
      });
    },
    dryRunUpgrade(p) {
      return withValuesFile(p.values, async (valuesFile) => {
        // No post-renderer and no labels: helm's plain rendering, as operator-sdk's dry run compares it.
        const dryRun = p.dryRun ?? 'client';
        const args = upgradeArgs({ ...p, valuesFile, historyMax, dryRun, ...validation });
        const secrets = secretsOf(p.values, p.secrets, namesOf(p));
        const out = await run('upgrade --dry-run', args, ctxOf(p, secrets, valuesFile));
        return parseRelease(out.stdout, 'upgrade --dry-run', p);
      });
    },
    async uninstall(p) {
      const releases = [p.release, ...(p.also ?? [])];
      const ctx = ctxOf(p, secretsOf({}, p.secrets, [...namesOf(p), ...releases]));
      if (releases.length === 1) {
        await run('uninstall', uninstallArgs(p), ctx);
        return;
      }
      // --timeout applies to each release in turn: the process may take it once per release.
      const each = p.timeoutMs ?? DEFAULT_HELM_TIMEOUT_MS;
      await run('uninstall', uninstallArgs(p), {
        ...ctx,
        helmTimeoutMs: each * releases.length,
        ...(p.onUninstalled ? { onStdoutLine: uninstalledLines(releases, p.onUninstalled) } : {}),
        progress: (stdout) => {
          const { uninstalled, stoppedAt } = uninstallProgress(stdout, releases);
          return { release: stoppedAt ?? p.release, uninstalled };
        },
      });
    },
    async rollback(p) {
      const args = rollbackArgs({ ...p, historyMax, ...flags.force('rollback', p.force, p.clientSideApply) });
      await run('rollback', args, ctxOf(p, secretsOf({}, p.secrets, namesOf(p))));
    },
    async template(p) {
      const ctx = { signal: p.signal, release: p.release, namespace: p.namespace, secrets: [] };
      // A post-rendered template (the operator's warm-up) takes the client's post-renderer and validation, as install.
      const postRender = p.postRenderArgs && flags.apply('template', p).postRender;
      const args = templateArgs({ ...p, ...validation, ...(postRender ? { postRender } : {}) });
      return (await run('template', args, ctx)).stdout;
    },
    async create(p) {
      await run('create', createArgs({ path: join(p.dir, p.name) }), { signal: p.signal, secrets: [] });
    },
    async pull(p) {
      const args = pullArgs({ chart: p.chart, version: p.version, repo: p.repo, untarDir: p.destDir });
      const secrets = urlSecrets(args);
      await run('pull', args, { signal: p.signal, secrets, argSecrets: secrets });
    },
    async dependencyBuild(p) {
      await run('dependency build', dependencyBuildArgs(p), { signal: p.signal, secrets: [] });
    },
  };
}

function checkInt(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new ConfigError(`helm ${name} must be an integer >= ${min}`);
  return value;
}
