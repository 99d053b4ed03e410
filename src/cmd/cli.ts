// The `helm-operator` CLI (composition root): the only module that reads argv and process.env and installs signal
// handlers. Builds the real logger, helm adapter and kube client, hands them to the manager (src/manager/), which
// runs the operator, and picks the subcommand. Loaded by main.ts once the Node version is known to be good.
// Startup errors (flags, watches.yaml, helm, kubeconfig, missing CRDs) return a non-zero exit code with one message.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWatches } from '../config/watches.js';
import { realClock } from '../core/clock.js';
import { OperatorError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { createHelmCli } from '../helm/cli.js';
import { HelmVersionError } from '../helm/errors.js';
import { chain } from '../helm/middleware.js';
import { checkHelmVersion } from '../helm/output.js';
import { stopRunningProcesses } from '../helm/process.js';
import { createKubeClient } from '../kube/client.js';
import { Manager } from '../manager/manager.js';
import { HelmRuns, helmMetrics, metricAndDebugLog } from '../observability/helm-metrics.js';
import { createLogger } from '../observability/logger.js';
import { OperatorMetrics } from '../observability/metrics.js';
import { fifoPostRenderer } from '../ownership/fifo-server.js';
import { ownershipRenderer } from '../ownership/renderer.js';
import { createMetricsAuthorizer } from '../server/metrics-auth.js';
import { servingCertificate } from '../server/selfsigned.js';
import { VERSION } from '../version.js';
import { parseRunFlags, RUN_USAGE } from './flags/flags.js';
import { leaseTarget } from './flags/leader.js';
import { watchNamespaces } from './flags/namespaces.js';
import { ownShard } from './flags/shard.js';
import { takeHelmBinary } from './flags/tool.js';
import { pickSubcommand, USAGE } from './usage.js';

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function version(argv: readonly string[]): Promise<number> {
  let helmBinary: string;
  try {
    const { binary, rest } = takeHelmBinary('version', argv, process.env);
    if (rest.length > 0) throw new Error(`version: unexpected argument ${JSON.stringify(rest[0])}`);
    helmBinary = binary;
  } catch (err) {
    process.stderr.write(`helm-operator ${message(err)}\n`);
    return 2;
  }
  let helm = 'not found';
  const workDir = mkdtempSync(join(tmpdir(), 'helm-operator-'));
  try {
    const v = await createHelmCli({ binary: helmBinary, workDir, env: process.env }).version({
      signal: AbortSignal.timeout(30_000),
    });
    helm = v.version;
  } catch (err) {
    helm = `unavailable (${message(err)})`;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  process.stdout.write(`helm-operator-ts version: "${VERSION}", node version: "${process.version}", helm: "${helm}"\n`);
  return 0;
}

async function run(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(RUN_USAGE);
    return 0;
  }
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
  let workDir: string | undefined;
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

    workDir = mkdtempSync(join(tmpdir(), 'helm-operator-'));
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
    const stop = stopOnSignals(logger);
    return await manager.run(
      {
        watches,
        namespaces,
        reconcilePeriodMs: opts.reconcilePeriodMs,
        maxConcurrentReconciles: opts.maxConcurrentReconciles,
        uninstallBatch: opts.maxUninstallBatch,
        inProcessUninstall: opts.inProcessUninstall ? { helmMajor: helmVersion.major } : undefined,
        kube: kube.client,
        helm,
        render: (p) => helm.template(p),
        helmMiddlewares: [helmMetrics(observeHelm, runs)],
        suppressOverrideValues: opts.suppressOverrideValues,
        statusManifest: opts.statusManifest,
        chartRollout: opts.chartRollout,
        postRender: {
          dir: postRenderDir,
          render: ownershipRenderer(kube.client),
          kill: (pid, sig) => process.kill(pid, sig),
        },
        lease: lease && { ...lease, identity, timing },
        shards: sharding,
      },
      stop,
    );
  } catch (err) {
    const code = err instanceof OperatorError ? err.code : undefined;
    logger.error({ code }, message(err));
    return 1;
  } finally {
    await manager?.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * SIGTERM and SIGINT abort the returned signal: the operator stops taking work and waits for running helm
 * processes (SIGTERM is sent to them). Persistent listeners (not `once`), so that every signal is handled here. A
 * second signal exits at once, after sending SIGTERM to the helm processes still running.
 */
function stopOnSignals(logger: Logger): AbortSignal {
  const stop = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (stop.signal.aborted) {
      logger.warn({ signal: sig }, 'Second signal: exiting without waiting for helm');
      stopRunningProcesses();
      process.exit(1);
    }
    logger.info({ signal: sig }, 'Stopping: waiting for running helm processes (SIGTERM sent to them)');
    stop.abort(new Error(`received ${sig}`));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return stop.signal;
}

/**
 * The tool commands, by name. tools.ts (the scaffolder, bundle, RBAC, undeploy) is loaded only for them: `run`
 * never pays for compiling it (~3 MiB of RSS and 0.9 MiB of heap).
 */
const TOOLS = {
  undeploy: 'runUndeploy',
  cleanup: 'runCleanup',
  init: 'runInitCommand',
  'generate bundle': 'runGenerateBundle',
  'generate rbac': 'runGenerateRbac',
  'create api': 'runCreateApi',
  pack: 'runPack',
} as const;

/** Runs a tool command with the real environment; Ctrl-C aborts it; errors print one line and exit 1. */
async function tool(cmd: keyof typeof TOOLS, argv: readonly string[]): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const io = {
    env: process.env,
    cwd: process.cwd(),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  };
  try {
    const tools = await import('./tools.js');
    return await tools[TOOLS[cmd]](argv, io, stop.signal);
  } catch (err) {
    const code = err instanceof OperatorError ? ` (${err.code})` : '';
    process.stderr.write(`helm-operator ${cmd}: ${message(err)}${code}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Runs one `helm-operator` command line; resolves to the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'run':
      return run(rest);
    case 'version':
      return version(rest);
    case 'undeploy':
    case 'cleanup':
    case 'init':
    case 'pack':
      return tool(cmd, rest);
    case 'create':
    case 'generate': {
      const [sub, ...args] = rest;
      const picked = pickSubcommand(cmd, sub, process);
      return typeof picked === 'number' ? picked : tool(`${cmd} ${picked}` as keyof typeof TOOLS, args);
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return cmd === undefined ? 2 : 0;
    default:
      process.stderr.write(`helm-operator: unknown command ${JSON.stringify(cmd)}\n\n${USAGE}`);
      return 2;
  }
}
