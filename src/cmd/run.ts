// `helm-operator run`, the composition of the running operator: builds the real logger, helm adapter and kube
// client from the flags and the environment, hands them to the manager (src/manager/) and installs the signal
// handlers. Loaded by cli.ts only for `run`, so that the other commands never load the operator.
// Startup errors (flags, watches.yaml, helm, kubeconfig, missing CRDs) return a non-zero exit code with one message.
import { randomUUID } from 'node:crypto';
import { availableParallelism, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWatches } from '../config/watches.js';
import { realClock } from '../core/clock.js';
import { OperatorError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { openWorkDir, sweepStaleWorkDirs, type WorkDir } from '../core/work-dir.js';
import { createHelmCli } from '../helm/cli.js';
import { HelmVersionError } from '../helm/errors.js';
import { chain } from '../helm/middleware.js';
import { checkHelmVersion } from '../helm/output.js';
import { stopRunningProcesses } from '../helm/process.js';
import { createKubeClient } from '../kube/client.js';
import { Manager } from '../manager/manager.js';
import { HelmRuns, helmMetrics, metricAndDebugLog } from '../observability/helm-metrics.js';
import { idleCompaction } from '../observability/idle-compaction.js';
import { createLogger } from '../observability/logger.js';
import { OperatorMetrics } from '../observability/metrics.js';
import { fifoPostRenderer } from '../ownership/fifo-server.js';
import { ownershipRenderer } from '../ownership/renderer.js';
import { createMetricsAuthorizer } from '../server/metrics-auth.js';
import { servingCertificate } from '../server/selfsigned.js';
import { VERSION } from '../version.js';
import { parseRunFlags } from './flags/flags.js';
import { leaseTarget } from './flags/leader.js';
import { watchNamespaces } from './flags/namespaces.js';
import { ownShard } from './flags/shard.js';
import { fullGc } from './full-gc.js';

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `helm-operator run` (its --help is answered by cli.ts without loading this module); resolves to the exit code. */
export async function runOperator(argv: readonly string[]): Promise<number> {
  // A flag error is a usage error: plain text and exit 2, as the other commands, before any logger exists.
  let opts: ReturnType<typeof parseRunFlags>;
  try {
    opts = parseRunFlags(argv, { env: process.env, cpus: availableParallelism() });
  } catch (err) {
    const code = err instanceof OperatorError ? ` (${err.code})` : '';
    process.stderr.write(`helm-operator run: ${message(err)}${code}\n`);
    return 2;
  }
  const logger: Logger = createLogger({ level: opts.logLevel, encoder: opts.logEncoder });
  let work: WorkDir | undefined;
  let manager: Manager | undefined;
  try {
    logger.info({ version: VERSION, node: process.version }, 'Starting helm-operator');
    for (const flag of opts.notYet) logger.warn({ flag }, 'Flag accepted for compatibility but not implemented yet');

    const { watches, warnings } = loadWatches(opts.watchesFile, { env: process.env, cwd: process.cwd() });
    for (const w of warnings) logger.warn({ file: opts.watchesFile }, w);

    const metrics = new OperatorMetrics({ version: VERSION });
    // Built (no request yet) before the servers: --metrics-require-rbac checks tokens with it.
    const kube = createKubeClient({
      env: process.env,
      userAgent: `helm-operator-ts/${VERSION} (${process.platform}/${process.arch}) node/${process.versions.node}`,
      ...(opts.kubeApiRateLimit ? { rateLimit: opts.kubeApiRateLimit } : {}),
    });
    const tls = opts.metricsSecure
      ? servingCertificate({
          certPath: opts.metricsCertPath,
          certName: opts.metricsCertName,
          keyName: opts.metricsCertKey,
        })
      : undefined;
    // Served before helm, discovery and informers: /healthz answers at once, /readyz is 503 until every
    // controller's informers have synced.
    manager = await Manager.start({
      servers: {
        metricsAddress: opts.metricsBindAddress,
        probeAddress: opts.healthProbeBindAddress,
        ...(tls ? { tls } : {}),
        ...(opts.metricsRequireRbac
          ? {
              authorize: createMetricsAuthorizer({
                kube: kube.client,
                clock: realClock,
                logger: logger.child({ component: 'metrics-auth' }),
              }),
            }
          : {}),
      },
      metrics,
      clock: realClock,
      logger,
    });

    // From here on a signal stops the operator through `finally`, which removes the work directory.
    const stop = stopOnSignals(logger, opts.gracefulShutdownTimeoutMs);
    work = openPrivateDir(logger);
    const workDir = work.path;
    // helm runs a bash script as its post-renderer, which hands each manifest back through this private directory.
    const postRenderDir = join(workDir, 'post-render');
    const postRenderer = fifoPostRenderer(postRenderDir);
    const observeHelm = metricAndDebugLog(metrics, logger.child({ component: 'helm' }));
    const helmBase = {
      binary: opts.helmBinary,
      workDir,
      env: process.env,
      openApiValidation: opts.helmOpenApiValidation,
      // helm's requests under the operator's own limit: none by default, as operator-sdk's in-process helm.
      rateLimit: opts.kubeApiRateLimit ?? { qps: -1 },
    };
    // Probe helm once: its major version is an input of the client that runs the releases.
    const probe = chain(createHelmCli(helmBase), [helmMetrics(observeHelm)]);
    const probeSignal = AbortSignal.timeout(30_000);
    const helmVersion = await probe.version({ signal: probeSignal }).catch((err: unknown) => {
      if (!probeSignal.aborted) throw err;
      const binary = JSON.stringify(opts.helmBinary);
      throw new HelmVersionError('unknown', `helm version did not answer within 30s (binary ${binary}): is it helm?`, {
        cause: err,
      });
    });
    checkHelmVersion(helmVersion);
    const runs = new HelmRuns();
    metrics.helmStillRunning(() => runs.stillRunning());
    const helm = createHelmCli({ ...helmBase, postRenderer, major: helmVersion.major });
    logger.info({ helm: helmVersion.version, binary: opts.helmBinary }, 'Found helm');

    const conn = kube.describe();
    logger.info({ server: conn.server, context: conn.context, source: conn.source }, 'Connecting to the API server');
    const lease = leaseTarget(opts, conn);
    const identity = `${hostname()}_${randomUUID()}`;
    const timing = opts.leaseTiming;
    const sharding =
      lease && opts.shardCount > 1
        ? {
            ...lease,
            identity,
            timing,
            count: opts.shardCount,
            index: ownShard(opts, process.env.POD_NAME || process.env.HOSTNAME || hostname()),
          }
        : undefined;
    const namespaces = watchNamespaces(process.env.WATCH_NAMESPACE);
    logger.info({ namespaces }, namespaces[0] === '' ? 'Watching all namespaces' : 'Watching namespaces');
    const compaction = opts.compactWhenIdleMs > 0 && [
      idleCompaction({
        gc: fullGc(),
        clock: realClock,
        logger: logger.child({ component: 'memory' }),
        quietMs: opts.compactWhenIdleMs,
        signal: stop,
        rss: () => process.memoryUsage.rss(),
        heapTotal: () => process.memoryUsage().heapTotal,
      }),
    ];
    return await manager.run(
      {
        watches,
        namespaces,
        kube: kube.client,
        helm: {
          client: helm,
          middlewares: [helmMetrics(observeHelm, runs), ...(compaction || [])],
          render: (p) => helm.template(p),
          chartStageDir: join(workDir, 'charts'),
        },
        reconcile: {
          reconcilePeriodMs: opts.reconcilePeriodMs,
          maxConcurrentReconciles: opts.maxConcurrentReconciles,
          suppressOverrideValues: opts.suppressOverrideValues,
          statusManifest: opts.statusManifest,
          chartRollout: opts.chartRollout,
        },
        deletion: {
          uninstallBatch: opts.maxUninstallBatch,
          inProcessUninstall: opts.inProcessUninstall ? { helmMajor: helmVersion.major } : undefined,
        },
        postRender: {
          dir: postRenderDir,
          render: ownershipRenderer(kube.client),
          kill: (pid, sig) => process.kill(pid, sig),
        },
        lease: lease && { ...lease, identity, timing },
        shards: sharding,
        shutdownGraceMs: opts.gracefulShutdownTimeoutMs,
      },
      stop,
    );
  } catch (err) {
    const code = err instanceof OperatorError ? err.code : undefined;
    logger.error({ code }, message(err));
    return 1;
  } finally {
    await manager?.close();
    work?.close();
  }
}

/** The work directory, after sweeping those of dead operators (a pod's /tmp emptyDir outlives an OOM-killed one). */
function openPrivateDir(logger: Logger): WorkDir {
  const log = logger.child({ component: 'work-dir' });
  const swept = sweepStaleWorkDirs({ tmpDir: tmpdir(), nowMs: realClock.now(), uid: process.getuid?.() });
  for (const { path, silentMs } of swept.removed) {
    log.info({ dir: path, silentSeconds: Math.round(silentMs / 1000) }, "Removed a dead operator's work directory");
  }
  for (const { path, error } of swept.failed) {
    log.warn({ dir: path, err: error }, "Could not remove a dead operator's work directory");
  }
  return openWorkDir({
    tmpDir: tmpdir(),
    clock: realClock,
    onHeartbeatError: (err) => log.warn({ err }, 'Could not touch the work directory heartbeat'),
  });
}

/**
 * SIGTERM and SIGINT abort the returned signal, a graceful stop: the operator starts no reconcile any more and lets
 * the running ones and their helm finish, for at most `graceMs` (then the manager stops helm), before it releases
 * its lease and exits 0. helm is not signalled: it runs in process groups of its own (helm/process.ts), so a
 * terminal's Ctrl-C to the operator's group does not reach it either. Persistent listeners (not `once`), so that
 * every signal is handled here. A second signal exits at once (1), after sending SIGTERM to the helm processes still
 * running (a release they leave pending-* is recovered by the next leader).
 */
function stopOnSignals(logger: Logger, graceMs: number): AbortSignal {
  const stop = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (stop.signal.aborted) {
      logger.warn({ signal: sig }, 'Second signal: exiting without waiting for helm');
      stopRunningProcesses();
      process.exit(1);
    }
    logger.info(
      { signal: sig, graceMs },
      'Stopping: waiting for running helm processes to finish; no new reconcile starts',
    );
    stop.abort(new Error(`received ${sig}`));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return stop.signal;
}
