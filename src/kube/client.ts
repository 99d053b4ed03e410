// Builds the operator's KubeClient: finds the kubeconfig (explicit path → KUBECONFIG → in-cluster → ~/.kube/config),
// and uses @kubernetes/client-node only for configuration and auth; requests are raw JSON (kube/rest.ts).
// The only module that imports @kubernetes/client-node. Never reads process.env and never logs credentials.

import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { isIPv6 } from 'node:net';
import { arch, homedir, platform } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { type Clock, realClock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import type { Connection } from './http.js';
import { createSend } from './http.js';
import { TokenBucket } from './ratelimit.js';
import { RestClient } from './rest.js';
import type { KubeClient } from './types.js';

export type * from './types.js';

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
  const { kc, source } = loadKubeConfig(options);
  if (options.context !== undefined) {
    if (kc.getContextObject(options.context) === null) {
      throw new ConfigError(`kubeconfig context ${JSON.stringify(options.context)} does not exist`);
    }
    kc.setCurrentContext(options.context);
  }
  const cluster = kc.getCurrentCluster();
  if (cluster === null) {
    throw new ConfigError(`kubeconfig (${source}) has no cluster for context ${JSON.stringify(kc.currentContext)}`);
  }
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch (err) {
    throw new ConfigError(`kubeconfig cluster ${cluster.name} has an invalid server URL`, { cause: err });
  }
  if (server.protocol === 'http:' && !cluster.skipTLSVerify) {
    throw new ConfigError(`kubeconfig cluster ${cluster.name} uses plain http without insecure-skip-tls-verify`);
  }
  const clock = options.clock ?? realClock;
  const client = new RestClient({
    send: createSend(connectionFor(kc, server, cluster.proxyUrl !== undefined)),
    userAgent: options.userAgent ?? `helm-operator-ts (${platform()}/${arch()})`,
    ...(options.rateLimit ? { limiter: new TokenBucket({ ...options.rateLimit, clock }) } : {}),
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
  });
  const namespace = kc.getContextObject(kc.currentContext)?.namespace;
  const shown = new URL(server);
  shown.username = '';
  shown.password = '';
  const info: KubeConnectionInfo = {
    server: shown.toString().replace(/\/$/, ''),
    context: kc.currentContext,
    source,
    ...(namespace === undefined || namespace === '' ? {} : { namespace }),
  };
  return { client, describe: () => info };
}

function loadKubeConfig(options: CreateKubeClientOptions): { kc: KubeConfig; source: KubeConfigSource } {
  const { env } = options;
  if (options.kubeconfigPath !== undefined) {
    return { kc: loadFiles([options.kubeconfigPath], 'the kubeconfig path'), source: 'explicit' };
  }
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '');
  if (fromEnv.length > 0) {
    // Like kubectl: files in the list that do not exist are skipped.
    const present = fromEnv.filter((f) => existsSync(f));
    if (present.length === 0) throw new ConfigError('none of the files in KUBECONFIG exist');
    return { kc: loadFiles(present, 'KUBECONFIG'), source: 'KUBECONFIG' };
  }
  const host = env.KUBERNETES_SERVICE_HOST;
  if (host !== undefined && host !== '') {
    return { kc: loadInCluster(host, env.KUBERNETES_SERVICE_PORT ?? '443', options), source: 'in-cluster' };
  }
  const home = join(env.HOME ?? homedir(), '.kube', 'config');
  if (existsSync(home)) return { kc: loadFiles([home], '~/.kube/config'), source: 'home' };
  throw new ConfigError(
    'no Kubernetes configuration found: set KUBECONFIG, run inside a pod, or create ~/.kube/config',
  );
}

/** Loads and merges kubeconfig files; as in kubectl, the first file to define a name or current-context wins. */
function loadFiles(files: readonly string[], what: string): KubeConfig {
  const merged = new KubeConfig();
  const clusters = new Map<string, KubeConfig['clusters'][number]>();
  const users = new Map<string, KubeConfig['users'][number]>();
  const contexts = new Map<string, KubeConfig['contexts'][number]>();
  let currentContext = '';
  for (const file of files) {
    const kc = new KubeConfig();
    try {
      kc.loadFromFile(file);
    } catch (err) {
      // The parser's message may quote file content (credentials), so only the path is reported.
      throw new ConfigError(`cannot load the kubeconfig file ${file} (from ${what})`, { cause: err });
    }
    for (const c of kc.clusters) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of kc.users) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of kc.contexts) if (!contexts.has(c.name)) contexts.set(c.name, c);
    if (currentContext === '' && kc.currentContext) currentContext = kc.currentContext;
  }
  merged.loadFromOptions({
    clusters: [...clusters.values()],
    users: [...users.values()],
    contexts: [...contexts.values()],
    currentContext,
  });
  return merged;
}

/**
 * The pod's service account, like client-node's loadFromCluster but from the env passed in (loadFromCluster reads
 * process.env). The CA is read once; the token file is re-read by client-node's tokenFile auth every 60 s.
 */
function loadInCluster(host: string, port: string, options: CreateKubeClientOptions): KubeConfig {
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) {
    throw new ConfigError(`KUBERNETES_SERVICE_HOST is set but the service-account token ${tokenFile} is missing`);
  }
  let caData: string;
  try {
    caData = readFileSync(join(dir, 'ca.crt')).toString('base64');
  } catch (err) {
    throw new ConfigError(`cannot read the service-account CA in ${dir}`, { cause: err });
  }
  const namespaceFile = join(dir, 'namespace');
  const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() : undefined;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'in-cluster',
        server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
        caData,
        skipTLSVerify: false,
      },
    ],
    users: [{ name: 'in-cluster', authProvider: { name: 'tokenFile', config: { tokenFile } } }],
    contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', namespace }],
    currentContext: 'in-cluster',
  });
  return kc;
}

/**
 * Auth headers come from client-node per request (tokens rotate). The TLS agent is our own keep-alive agent,
 * rebuilt only when the TLS material changes: client-node's agent does not keep connections alive. Behind a
 * proxy (kubeconfig proxy-url) client-node's proxy agent is used as is.
 */
function connectionFor(kc: KubeConfig, server: URL, proxied: boolean): Connection {
  let agent: http.Agent | undefined;
  let agentKey: readonly unknown[] = [];
  return {
    server,
    async prepare() {
      const opts: https.RequestOptions = {};
      await kc.applyToHTTPSOptions(opts);
      const headers: Record<string, string> = {};
      if (opts.headers !== undefined && !Array.isArray(opts.headers)) {
        for (const [k, v] of Object.entries(opts.headers)) if (v !== undefined) headers[k] = String(v);
      }
      if (typeof opts.auth === 'string') headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
      if (proxied && opts.agent instanceof http.Agent) return { headers, agent: opts.agent };
      const key = [opts.ca, opts.cert, opts.key, opts.pfx, opts.passphrase, opts.servername, opts.rejectUnauthorized];
      if (agent === undefined || !sameMaterial(key, agentKey)) {
        // The old agent is not destroyed: requests in flight finish on it, and its idle sockets are closed by
        // the server. Rotation (e.g. exec-plugin client certificates) is rare.
        agentKey = key;
        agent = makeAgent(server, opts);
      }
      return { headers, agent };
    },
  };
}

function makeAgent(server: URL, opts: https.RequestOptions): http.Agent {
  const keepAlive = { keepAlive: true, keepAliveMsecs: 30_000 };
  if (server.protocol === 'http:') return new http.Agent(keepAlive);
  const tls: https.AgentOptions = { ...keepAlive };
  if (opts.ca !== undefined) tls.ca = opts.ca;
  if (opts.cert !== undefined) tls.cert = opts.cert;
  if (opts.key !== undefined) tls.key = opts.key;
  if (opts.pfx !== undefined) tls.pfx = opts.pfx;
  if (opts.passphrase !== undefined) tls.passphrase = opts.passphrase;
  if (opts.servername !== undefined) tls.servername = opts.servername;
  if (opts.rejectUnauthorized !== undefined) tls.rejectUnauthorized = opts.rejectUnauthorized;
  return new https.Agent(tls);
}

function sameMaterial(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => equalValue(v, b[i]));
}

function equalValue(a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  return a === b;
}
