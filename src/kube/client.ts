// Builds the operator's KubeClient: finds the kubeconfig (explicit path → KUBECONFIG → in-cluster → ~/.kube/config)
// with our own loader (kube/kubeconfig.ts; @kubernetes/client-node is not used: loading it cost ~50 MiB of RSS),
// and connects with per-request auth (kube/kube-auth.ts) over a keep-alive agent (kube/agent.ts); requests are raw
// JSON (kube/rest.ts). Called by cmd/. Never reads process.env and never logs credentials.

import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { arch, homedir, platform } from 'node:os';
import { delimiter, join } from 'node:path';
import { type Clock, realClock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { createAgentCache } from './agent.js';
import { createSend } from './http.js';
import { createKubeAuth } from './kube-auth.js';
import { loadKubeconfigFiles, type SelectedConfig, selectContext } from './kubeconfig.js';
import { TokenBucket } from './ratelimit.js';
import { RestClient } from './rest.js';
import type { KubeClient } from './types.js';

export interface CreateKubeClientOptions {
  /** The process environment (KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT, HOME), passed in by cmd/. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A kubeconfig file that wins over everything else (e.g. a --kubeconfig flag). @default none */
  readonly kubeconfigPath?: string;
  /** Use this kubeconfig context instead of the current one. @default the kubeconfig's current-context */
  readonly context?: string;
  /** @default `helm-operator-ts (<platform>/<arch>)`; the CLI adds the Node version */
  readonly userAgent?: string;
  /**
   * A client-side request limit. @default none: like controller-runtime v0.21's GetConfig (QPS −1), the API
   * server's Priority and Fairness protects it
   */
  readonly rateLimit?: KubeRateLimit;
  /** Deadline for each non-watch request. @default 60_000 */
  readonly requestTimeoutMs?: number;
  /** @default realClock */
  readonly clock?: Clock;
  /** Where a pod's service-account token, CA and namespace live. @default /var/run/secrets/kubernetes.io/serviceaccount */
  readonly serviceAccountDir?: string;
}

/** client-go's rest.Config QPS and Burst, once enabled (kube/ratelimit.ts's token bucket). */
export interface KubeRateLimit {
  /** Sustained requests per second, > 0. */
  readonly qps: number;
  /** Requests allowed at once after an idle period: an integer ≥ 1. */
  readonly burst: number;
}

export type KubeConfigSource = 'explicit' | 'KUBECONFIG' | 'in-cluster' | 'home';

export interface KubeConnectionInfo {
  /** The API server URL (without any user info). */
  readonly server: string;
  readonly context: string;
  readonly source: KubeConfigSource;
  /** The context's default namespace (in a pod: the pod's namespace). */
  readonly namespace?: string;
}

export interface KubeClientHandle {
  readonly client: KubeClient;
  describe(): KubeConnectionInfo;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Loads the configuration and builds the client. Throws a ConfigError when no usable kubeconfig is found. */
export function createKubeClient(options: CreateKubeClientOptions): KubeClientHandle {
  const { selected, source } = loadKubeConfig(options);
  const { cluster } = selected;
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch {
    // Not the parser's message: a server URL may carry user info.
    throw new ConfigError(`kubeconfig cluster ${cluster.name} has an invalid server URL`);
  }
  if (server.protocol !== 'https:' && server.protocol !== 'http:') {
    throw new ConfigError(`kubeconfig cluster ${cluster.name} has a server URL that is neither https nor http`);
  }
  if (server.protocol === 'http:' && !cluster.insecureSkipTlsVerify) {
    throw new ConfigError(`kubeconfig cluster ${cluster.name} uses plain http without insecure-skip-tls-verify`);
  }
  const clock = options.clock ?? realClock;
  const auth = createKubeAuth(selected, { env: options.env, clock });
  const agentFor = createAgentCache(server, cluster.proxyUrl);
  const send = createSend({
    server,
    async prepare() {
      const { headers, tls } = await auth();
      return { headers, agent: agentFor(tls) };
    },
  });
  const client = new RestClient({
    // A 401 re-reads the credentials at once (rate-limited) and the request is sent once more, as client-go does.
    // Requests refused together share one re-read: one sent before the latest refresh is simply sent again.
    send: async (request) => {
      const before = auth.generation();
      const response = await send(request);
      if (response.status !== 401 || (auth.generation() === before && !auth.refresh())) return response;
      response.discard();
      return send(request);
    },
    userAgent: options.userAgent ?? `helm-operator-ts (${platform()}/${arch()})`,
    ...(options.rateLimit ? { limiter: new TokenBucket({ ...options.rateLimit, clock }) } : {}),
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
  });
  const shown = new URL(server);
  shown.username = '';
  shown.password = '';
  const info: KubeConnectionInfo = {
    server: shown.toString().replace(/\/$/, ''),
    context: selected.context,
    source,
    ...(selected.namespace === undefined ? {} : { namespace: selected.namespace }),
  };
  return { client, describe: () => info };
}

function loadKubeConfig(options: CreateKubeClientOptions): { selected: SelectedConfig; source: KubeConfigSource } {
  const { env, context } = options;
  const fromFiles = (files: readonly string[], what: string, source: KubeConfigSource) => ({
    selected: selectContext(loadKubeconfigFiles(files, what), source, context),
    source,
  });
  if (options.kubeconfigPath !== undefined)
    return fromFiles([options.kubeconfigPath], 'the kubeconfig path', 'explicit');
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '');
  if (fromEnv.length > 0) {
    // Like kubectl: files in the list that do not exist are skipped.
    const present = fromEnv.filter((f) => existsSync(f));
    if (present.length === 0) throw new ConfigError('none of the files in KUBECONFIG exist');
    return fromFiles(present, 'KUBECONFIG', 'KUBECONFIG');
  }
  const host = env.KUBERNETES_SERVICE_HOST;
  if (host !== undefined && host !== '') {
    const selected = inCluster(host, env.KUBERNETES_SERVICE_PORT ?? '443', options);
    if (context !== undefined && context !== selected.context) {
      throw new ConfigError(`kubeconfig context ${JSON.stringify(context)} does not exist`);
    }
    return { selected, source: 'in-cluster' };
  }
  const home = join(env.HOME ?? homedir(), '.kube', 'config');
  if (existsSync(home)) return fromFiles([home], '~/.kube/config', 'home');
  throw new ConfigError(
    'no Kubernetes configuration found: set KUBECONFIG, run inside a pod, or create ~/.kube/config',
  );
}

/**
 * The pod's service account, like client-go's InClusterConfig but from the env passed in. The token file (and the
 * CA) are re-read every 60 s by kube/kube-auth.ts: projected tokens rotate.
 */
function inCluster(host: string, port: string, options: CreateKubeClientOptions): SelectedConfig {
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) {
    throw new ConfigError(`KUBERNETES_SERVICE_HOST is set but the service-account token ${tokenFile} is missing`);
  }
  const namespaceFile = join(dir, 'namespace');
  const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() : '';
  return {
    context: 'in-cluster',
    cluster: {
      name: 'in-cluster',
      server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
      caFile: join(dir, 'ca.crt'),
      insecureSkipTlsVerify: false,
    },
    user: { name: 'in-cluster', tokenFile, impersonateExtra: false },
    ...(namespace === '' ? {} : { namespace }),
  };
}
