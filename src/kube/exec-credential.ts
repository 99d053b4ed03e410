// Runs a kubeconfig exec credential plugin (client.authentication.k8s.io/v1 or v1beta1) and caches the
// ExecCredential it prints until its status.expirationTimestamp, then runs it again. Called by kube/kube-auth.ts
// before requests. Never logs the plugin's output nor puts it in an error (it is a credential); the plugin's
// stderr goes to ours, as with kubectl.

import { spawn } from 'node:child_process';
import type { Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import type { ExecConfig } from './kubeconfig.js';

const API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

/** What a plugin hands back: a bearer token, a client certificate and key (PEM), or both. */
export interface ExecCredential {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
}

/** spec.cluster of the ExecCredential input, sent when the kubeconfig sets provideClusterInfo. */
export interface ExecClusterInfo {
  readonly server: string;
  readonly 'tls-server-name'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  readonly 'certificate-authority-data'?: string;
  readonly 'proxy-url'?: string;
  readonly config?: unknown;
}

export interface ExecCredentialOptions {
  readonly exec: ExecConfig;
  /** The kubeconfig user's name, for error messages. */
  readonly user: string;
  /** The environment the plugin inherits (the operator's, passed in by cmd/); exec.env is added on top. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cluster?: ExecClusterInfo;
  readonly clock: Clock;
  /** The plugin is killed after this long. @default 60_000 */
  readonly timeoutMs?: number;
  /** @default 'inherit' */
  readonly stderr?: 'inherit' | 'ignore';
}

/** The current credential; `invalidate()` drops the cached one, so that the next call runs the plugin again. */
export interface ExecCredentialSource {
  (): Promise<ExecCredential>;
  invalidate(): void;
}

/** Checks the configuration (throws a ConfigError) and returns a function that gives the current credential. */
export function createExecCredentialSource(options: ExecCredentialOptions): ExecCredentialSource {
  const { exec, user, clock } = options;
  if (!API_VERSIONS.includes(exec.apiVersion)) {
    throw new ConfigError(
      `kubeconfig user ${user}: exec apiVersion ${JSON.stringify(exec.apiVersion)} is not supported (use ${API_VERSIONS.join(' or ')})`,
    );
  }
  if (exec.interactiveMode === 'Always') {
    throw new ConfigError(`kubeconfig user ${user}: the exec plugin needs a terminal (interactiveMode: Always)`);
  }
  let cached: { readonly credential: ExecCredential; readonly expiresAt: number | undefined } | undefined;
  let running: Promise<ExecCredential> | undefined;
  const current = () => {
    if (cached !== undefined && (cached.expiresAt === undefined || clock.now() < cached.expiresAt)) {
      return Promise.resolve(cached.credential);
    }
    running ??= run(options)
      .then(({ credential, expiresAt }) => {
        cached = { credential, expiresAt };
        return credential;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  return Object.assign(current, {
    invalidate() {
      cached = undefined;
    },
  });
}

function run(options: ExecCredentialOptions): Promise<{ credential: ExecCredential; expiresAt: number | undefined }> {
  const { exec, user } = options;
  const input = {
    apiVersion: exec.apiVersion,
    kind: 'ExecCredential',
    spec: { interactive: false, ...(exec.provideClusterInfo && options.cluster ? { cluster: options.cluster } : {}) },
  };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.env)) if (v !== undefined) env[k] = v;
  for (const { name, value } of exec.env) env[name] = value;
  env.KUBERNETES_EXEC_INFO = JSON.stringify(input);
  const what = `the exec plugin ${exec.command} of kubeconfig user ${user}`;
  return new Promise((resolve, reject) => {
    const child = spawn(exec.command, exec.args, {
      env,
      stdio: ['ignore', 'pipe', options.stderr ?? 'inherit'],
      timeout: options.timeoutMs ?? 60_000,
    });
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('error', (err: NodeJS.ErrnoException) => {
      const hint = exec.installHint === undefined ? '' : `\n${exec.installHint}`;
      reject(new ConfigError(`cannot run ${what}: ${err.code ?? err.message}${hint}`));
    });
    child.once('close', (code, signal) => {
      if (code !== 0) {
        reject(new ConfigError(`${what} failed (${code === null ? `signal ${signal}` : `exit code ${code}`})`));
        return;
      }
      try {
        resolve(readCredential(Buffer.concat(chunks).toString('utf8'), exec.apiVersion, what));
      } catch (err) {
        reject(err);
      }
    });
  });
}

/** Validates the plugin's ExecCredential; errors name the problem, never the content. */
function readCredential(
  stdout: string,
  apiVersion: string,
  what: string,
): { credential: ExecCredential; expiresAt: number | undefined } {
  let out: unknown;
  try {
    out = JSON.parse(stdout);
  } catch {
    throw new ConfigError(`${what} printed no valid JSON`);
  }
  const o = (typeof out === 'object' && out !== null ? out : {}) as Record<string, unknown>;
  if (o.kind !== 'ExecCredential' || o.apiVersion !== apiVersion) {
    throw new ConfigError(`${what} printed no ExecCredential of apiVersion ${apiVersion}`);
  }
  const status = (typeof o.status === 'object' && o.status !== null ? o.status : {}) as Record<string, unknown>;
  const text = (k: string) => (typeof status[k] === 'string' && status[k] !== '' ? (status[k] as string) : undefined);
  const token = text('token');
  const cert = text('clientCertificateData');
  const key = text('clientKeyData');
  if ((cert === undefined) !== (key === undefined)) {
    throw new ConfigError(`${what} returned only one of clientCertificateData and clientKeyData`);
  }
  if (token === undefined && cert === undefined) {
    throw new ConfigError(`${what} returned neither a token nor a client certificate`);
  }
  let expiresAt: number | undefined;
  const expiry = text('expirationTimestamp');
  if (expiry !== undefined) {
    expiresAt = Date.parse(expiry);
    if (Number.isNaN(expiresAt)) throw new ConfigError(`${what} returned an invalid expirationTimestamp`);
  }
  const credential: ExecCredential = {
    ...(token === undefined ? {} : { token }),
    ...(cert === undefined || key === undefined ? {} : { clientCertificateData: cert, clientKeyData: key }),
  };
  return { credential, expiresAt };
}
