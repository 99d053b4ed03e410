// `helm-operator run` flags, with operator-sdk's names and defaults, parsed pflag-style (`--x=v`, `--x v`, bare
// booleans, `--b=false`). Pure: argv and env in, typed options out; throws ConfigError naming the flag.
// Called by cmd/run.ts (and leader.ts, and the scaffolders for shared parsing); never reads process.* itself.
import { parseDuration } from '../../core/duration.js';
import { ConfigError } from '../../core/errors.js';
import type { KubeRateLimit } from '../../kube/client.js';
import type { LogLevel } from '../../observability/logger.js';
import type { StatusManifestMode } from '../../reconciler/types.js';
import { kubeApiRateLimit } from './kube-api.js';
import { type ChartRolloutFlags, parseChartRolloutFlags } from './rollout.js';
import { parseShardFlags, type ShardFlags } from './shard.js';

/** --max-uninstall-batch's default: releases one `helm uninstall` process takes at most. */
export const DEFAULT_UNINSTALL_BATCH = 50;
/** The values --status-manifest takes. */
export const STATUS_MANIFEST_MODES: readonly StatusManifestMode[] = ['full', 'redacted', 'none'];

/** The metrics and probe servers (--metrics-*, --health-probe-bind-address). */
export interface ServingFlags {
  readonly metricsBindAddress: string;
  readonly healthProbeBindAddress: string;
  /** Serve /metrics over HTTPS. */
  readonly metricsSecure: boolean;
  /** Require a bearer token allowed to `get` the non-resource URL /metrics (needs metricsSecure). */
  readonly metricsRequireRbac: boolean;
  /** The directory holding the metrics certificate and key; '' means a generated self-signed certificate. */
  readonly metricsCertPath: string;
  readonly metricsCertName: string;
  readonly metricsCertKey: string;
}

/** Leader election (--leader-elect, --leader-election-id, --leader-election-namespace). */
export interface LeaderFlags {
  readonly leaderElect: boolean;
  readonly leaderElectionId: string;
  readonly leaderElectionNamespace: string;
}

/** The helm the operator runs (--helm-binary, --helm-openapi-validation). */
export interface HelmFlags {
  readonly helmBinary: string;
  /** Keep helm's client-side OpenAPI validation of install and upgrade (else `--disable-openapi-validation`). */
  readonly helmOpenApiValidation: boolean;
}

export interface RunOptions extends ShardFlags, ServingFlags, LeaderFlags, HelmFlags {
  readonly watchesFile: string;
  readonly reconcilePeriodMs: number;
  /** --graceful-shutdown-timeout: how long the running reconciles (and helm) may finish after SIGTERM; 0: stop helm at once. */
  readonly gracefulShutdownTimeoutMs: number;
  /** --compact-when-idle: one full garbage collection this long after a burst of helm calls ends; 0: never. */
  readonly compactWhenIdleMs: number;
  readonly maxConcurrentReconciles: number;
  /** Releases one `helm uninstall` process takes at most when several CRs are being deleted (1: one each). */
  readonly maxUninstallBatch: number;
  /** --in-process-uninstall: uninstall with the operator's own API client what helm need not run (default true). */
  readonly inProcessUninstall: boolean;
  readonly suppressOverrideValues: boolean;
  /** What status.deployedRelease.manifest holds: full, redacted (Secret values as digests) or none. */
  readonly statusManifest: StatusManifestMode;
  readonly logLevel: LogLevel;
  readonly logEncoder: 'json' | 'console';
  /** The kube client's rate limit (--kube-api-qps/--kube-api-burst); undefined: none, as controller-runtime v0.21. */
  readonly kubeApiRateLimit: KubeRateLimit | undefined;
  /** --chart-rollout-max-concurrent and --chart-rollout-max-failures (rollout.ts). */
  readonly chartRollout: ChartRolloutFlags;
  /** Flags accepted for compatibility whose behaviour arrives later; the CLI warns when they are set. */
  readonly notYet: readonly string[];
}

type Kind = 'string' | 'bool' | 'int' | 'duration';
interface FlagSpec {
  readonly kind: Kind;
  /** Set when the flag is parsed for compatibility but not implemented yet. */
  readonly notYet?: true;
}

const FLAGS: Readonly<Record<string, FlagSpec>> = {
  'watches-file': { kind: 'string' },
  'reconcile-period': { kind: 'duration' },
  'compact-when-idle': { kind: 'duration' },
  'graceful-shutdown-timeout': { kind: 'duration' },
  'max-concurrent-reconciles': { kind: 'int' },
  'max-uninstall-batch': { kind: 'int' },
  'metrics-bind-address': { kind: 'string' },
  'metrics-addr': { kind: 'string' },
  'health-probe-bind-address': { kind: 'string' },
  'leader-elect': { kind: 'bool' },
  'enable-leader-election': { kind: 'bool' },
  'leader-election-id': { kind: 'string' },
  'leader-election-namespace': { kind: 'string' },
  'helm-binary': { kind: 'string' },
  'zap-devel': { kind: 'bool' },
  'zap-encoder': { kind: 'string' },
  'zap-log-level': { kind: 'string' },
  'zap-stacktrace-level': { kind: 'string' },
  'zap-time-encoding': { kind: 'string' },
  'suppress-override-values': { kind: 'bool' },
  'helm-openapi-validation': { kind: 'bool' },
  'in-process-uninstall': { kind: 'bool' },
  'status-manifest': { kind: 'string' },
  'enable-http2': { kind: 'bool', notYet: true },
  'metrics-secure': { kind: 'bool' },
  'metrics-require-rbac': { kind: 'bool' },
  'metrics-cert-path': { kind: 'string' },
  'metrics-cert-name': { kind: 'string' },
  'metrics-cert-key': { kind: 'string' },
  'kube-api-qps': { kind: 'string' },
  'kube-api-burst': { kind: 'string' },
  'leader-elect-lease-duration': { kind: 'string' },
  'leader-elect-renew-deadline': { kind: 'string' },
  'leader-elect-retry-period': { kind: 'string' },
  'shard-count': { kind: 'string' },
  'shard-index': { kind: 'string' },
  'chart-rollout-max-concurrent': { kind: 'string' },
  'chart-rollout-max-failures': { kind: 'string' },
};

const BOOLS: Readonly<Record<string, boolean>> = { true: true, '1': true, t: true, TRUE: true, True: true, T: true };
const FALSES = new Set(['false', '0', 'f', 'F', 'FALSE', 'False']);

export interface ParseContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cpus: number;
}

/** Parses the arguments after `run`. */
export function parseRunFlags(argv: readonly string[], ctx: ParseContext): RunOptions {
  const seen = new Map<string, string | boolean>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument ${JSON.stringify(arg)}; flags start with --`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = FLAGS[name];
    if (!spec) throw new ConfigError(`unknown flag: --${name} (see helm-operator run --help)`);
    if (spec.kind === 'bool') {
      const raw = eq < 0 ? 'true' : arg.slice(eq + 1);
      if (!(raw in BOOLS) && !FALSES.has(raw))
        throw new ConfigError(`--${name}: ${JSON.stringify(raw)} is not a boolean`);
      seen.set(name, raw in BOOLS);
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new ConfigError(`flag needs an argument: --${name}`);
    seen.set(name, value);
  }
  const str = (n: string, d: string) => (seen.has(n) ? String(seen.get(n)) : d);
  const bool = (n: string) => seen.get(n) === true;
  exclusive(seen, 'metrics-addr', 'metrics-bind-address');
  exclusive(seen, 'enable-leader-election', 'leader-elect');

  const maxConc = str('max-concurrent-reconciles', String(Math.max(1, ctx.cpus)));
  if (!/^[1-9]\d*$/.test(maxConc)) {
    throw new ConfigError(`--max-concurrent-reconciles: ${JSON.stringify(maxConc)} must be a positive integer`);
  }
  const maxBatch = str('max-uninstall-batch', String(DEFAULT_UNINSTALL_BATCH));
  if (!/^[1-9]\d{0,2}$/.test(maxBatch)) {
    throw new ConfigError(`--max-uninstall-batch: ${JSON.stringify(maxBatch)} must be a whole number from 1 to 999`);
  }
  let periodMs: number;
  try {
    periodMs = parseDuration(str('reconcile-period', '1m'));
  } catch (err) {
    throw new ConfigError(`--reconcile-period: ${(err as Error).message}`, { cause: err });
  }
  if (periodMs < 0) throw new ConfigError('--reconcile-period must not be negative (0 disables periodic reconciles)');
  let compactMs: number;
  try {
    compactMs = parseDuration(str('compact-when-idle', '2s'));
  } catch (err) {
    throw new ConfigError(`--compact-when-idle: ${(err as Error).message}`, { cause: err });
  }
  if (compactMs < 0) throw new ConfigError('--compact-when-idle must not be negative (0 turns it off)');

  let graceMs: number;
  try {
    graceMs = parseDuration(str('graceful-shutdown-timeout', '5m'));
  } catch (err) {
    throw new ConfigError(`--graceful-shutdown-timeout: ${(err as Error).message}`, { cause: err });
  }
  if (graceMs < 0) throw new ConfigError('--graceful-shutdown-timeout must not be negative (0 stops helm at once)');

  const metricsSecure = bool('metrics-secure');
  if (bool('metrics-require-rbac') && !metricsSecure) {
    throw new ConfigError('--metrics-require-rbac needs --metrics-secure: bearer tokens are only accepted over HTTPS');
  }
  if (seen.has('metrics-cert-path') && !metricsSecure) {
    throw new ConfigError('--metrics-cert-path needs --metrics-secure: without it /metrics is plain HTTP');
  }
  for (const f of ['metrics-cert-name', 'metrics-cert-key']) {
    if (seen.has(f) && !seen.has('metrics-cert-path')) throw new ConfigError(`--${f} needs --metrics-cert-path`);
  }
  const devel = bool('zap-devel');
  const encoder = str('zap-encoder', devel ? 'console' : 'json');
  if (encoder !== 'json' && encoder !== 'console') {
    throw new ConfigError(`--zap-encoder: ${JSON.stringify(encoder)} must be json or console`);
  }
  return {
    watchesFile: str('watches-file', './watches.yaml'),
    reconcilePeriodMs: periodMs,
    compactWhenIdleMs: compactMs,
    gracefulShutdownTimeoutMs: graceMs,
    maxConcurrentReconciles: Number(maxConc),
    maxUninstallBatch: Number(maxBatch),
    inProcessUninstall: seen.get('in-process-uninstall') !== false,
    metricsBindAddress: str('metrics-bind-address', str('metrics-addr', ':8080')),
    healthProbeBindAddress: str('health-probe-bind-address', ':8081'),
    metricsSecure,
    metricsRequireRbac: bool('metrics-require-rbac'),
    metricsCertPath: str('metrics-cert-path', ''),
    metricsCertName: str('metrics-cert-name', 'tls.crt'),
    metricsCertKey: str('metrics-cert-key', 'tls.key'),
    leaderElect: bool('leader-elect') || bool('enable-leader-election'),
    leaderElectionId: str('leader-election-id', ctx.env.OPERATOR_NAME ?? ''),
    leaderElectionNamespace: str('leader-election-namespace', ''),
    helmBinary: str('helm-binary', ctx.env.HELM_BINARY || 'helm'),
    suppressOverrideValues: bool('suppress-override-values'),
    helmOpenApiValidation: bool('helm-openapi-validation'),
    statusManifest: statusManifest(str('status-manifest', 'redacted')),
    logLevel: logLevel(str('zap-log-level', devel ? 'debug' : 'info')),
    logEncoder: encoder,
    kubeApiRateLimit: kubeApiRateLimit(
      seen.get('kube-api-qps') as string | undefined,
      seen.get('kube-api-burst') as string | undefined,
    ),
    chartRollout: parseChartRolloutFlags({
      maxConcurrent: seen.get('chart-rollout-max-concurrent') as string | undefined,
      maxFailures: seen.get('chart-rollout-max-failures') as string | undefined,
    }),
    notYet: [...seen.keys()].filter((n) => FLAGS[n]?.notYet).map((n) => `--${n}`),
    ...parseShardFlags({
      count: seen.get('shard-count') as string | undefined,
      index: seen.get('shard-index') as string | undefined,
      leaseDuration: seen.get('leader-elect-lease-duration') as string | undefined,
      renewDeadline: seen.get('leader-elect-renew-deadline') as string | undefined,
      retryPeriod: seen.get('leader-elect-retry-period') as string | undefined,
    }),
  };
}

function exclusive(seen: ReadonlyMap<string, unknown>, old: string, current: string): void {
  if (seen.has(old) && seen.has(current)) throw new ConfigError(`only one of --${old} and --${current} may be set`);
}

function statusManifest(raw: string): StatusManifestMode {
  const mode = STATUS_MANIFEST_MODES.find((m) => m === raw);
  if (mode === undefined) {
    throw new ConfigError(`--status-manifest: ${JSON.stringify(raw)} must be full, redacted or none`);
  }
  return mode;
}

/** zap levels: debug, info, error, or an integer verbosity N > 0 (more detail: debug). */
function logLevel(raw: string): LogLevel {
  if (raw === 'debug' || raw === 'info' || raw === 'error') return raw;
  if (raw === 'warn') return 'warn';
  if (/^[1-9]\d*$/.test(raw)) return 'debug';
  throw new ConfigError(`--zap-log-level: ${JSON.stringify(raw)} must be debug, info, error or an integer > 0`);
}
