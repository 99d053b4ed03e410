// Per-request credentials of the selected kubeconfig context: Authorization and impersonation headers, and the TLS
// material (CA, client certificate and key, server name). Files are re-read once a minute (rotating service-account
// tokens and certificates), and at once after a 401 (refresh); exec plugins run through kube/exec-credential.ts. Called by
// kube/client.ts. Never logs; errors name files and fields, never their content.

import { readFileSync } from 'node:fs';
import type { Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { createExecCredentialSource, type ExecClusterInfo, type ExecCredential } from './exec-credential.js';
import type { KubeCluster, KubeUser, SelectedConfig } from './kubeconfig.js';

/** What the TLS agent is built from; a change of any field means a new agent (kube/agent.ts). */
export interface TlsMaterial {
  readonly ca?: Buffer;
  readonly cert?: Buffer | string;
  readonly key?: Buffer | string;
  readonly servername?: string;
  readonly rejectUnauthorized: boolean;
}

export interface RequestAuth {
  readonly headers: Readonly<Record<string, string>>;
  readonly tls: TlsMaterial;
}

export interface KubeAuthOptions {
  /** The environment exec plugins inherit. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly clock: Clock;
  /** How long a file read (token, certificates) is reused. @default 60_000, as client-go re-reads token files */
  readonly fileTtlMs?: number;
  /** Where exec plugins' stderr goes. @default 'inherit' */
  readonly execStderr?: 'inherit' | 'ignore';
}

/** Each request's credentials; `refresh()` after a 401 re-reads files and re-runs the exec plugin (see below). */
export interface KubeAuth {
  (): Promise<RequestAuth>;
  /**
   * The API server refused the credentials (401): the next request re-reads the token and certificate files and
   * runs the exec plugin again, as client-go does, instead of waiting for the minute's re-read. At most once per
   * REFRESH_EVERY_MS (a refused token that is still in the file is not re-read in a loop); false when it did not.
   */
  refresh(): boolean;
  /** How many refreshes there have been: a request prepared before the latest one carried stale credentials. */
  generation(): number;
}

/** The least time between two refreshes after 401s. */
export const REFRESH_EVERY_MS = 1_000;

/**
 * Checks the user and cluster (throws a ConfigError for what is unsupported or unreadable now) and returns the
 * function that gives each request its credentials.
 */
export function createKubeAuth(selected: SelectedConfig, options: KubeAuthOptions): KubeAuth {
  const { cluster, user } = selected;
  const ttl = options.fileTtlMs ?? 60_000;
  const refreshes = { generation: 0, at: Number.NEGATIVE_INFINITY };
  const refresh = (invalidate?: () => void) => () => {
    if (options.clock.now() - refreshes.at < REFRESH_EVERY_MS) return false;
    refreshes.at = options.clock.now();
    refreshes.generation++;
    invalidate?.();
    return true;
  };
  const generation = () => refreshes.generation;
  const file = (path: string, what: string) => fileSource(path, what, options.clock, ttl, generation);
  const ca = material(cluster.caData, cluster.caFile, () =>
    file(cluster.caFile ?? '', `the CA of cluster ${cluster.name}`),
  );
  pem(ca, CERTIFICATE, `the CA of kubeconfig cluster ${cluster.name} (certificate-authority[-data])`);
  const tls = { rejectUnauthorized: !cluster.insecureSkipTlsVerify, ...opt('servername', cluster.tlsServerName) };
  if (user === undefined) {
    return Object.assign(async () => ({ headers: {}, tls: { ...tls, ...opt('ca', ca?.()) } }), {
      refresh: refresh(),
      generation,
    });
  }

  checkSupported(user);
  const of = `of kubeconfig user ${user.name}`;
  const cert = material(user.certData, user.certFile, () => file(user.certFile ?? '', `the client certificate ${of}`));
  const key = material(user.keyData, user.keyFile, () => file(user.keyFile ?? '', `the client key ${of}`));
  if ((cert === undefined) !== (key === undefined)) {
    throw new ConfigError(`kubeconfig user ${user.name} has a client certificate or key without the other`);
  }
  pem(cert, CERTIFICATE, `the client certificate ${of} (client-certificate[-data])`);
  pem(key, PRIVATE_KEY, `the client key ${of} (client-key[-data])`);
  const token = tokenSource(user, options.clock, ttl, generation);
  const exec =
    user.exec === undefined
      ? undefined
      : createExecCredentialSource({
          exec: user.exec,
          user: user.name,
          env: options.env,
          cluster: clusterInfo(cluster),
          clock: options.clock,
          ...opt('stderr', options.execStderr),
        });
  const fixed: Record<string, string> = {};
  if (user.impersonate?.user !== undefined) fixed['Impersonate-User'] = user.impersonate.user;
  if (user.impersonate?.uid !== undefined) fixed['Impersonate-Uid'] = user.impersonate.uid;
  const group = user.impersonate?.groups[0];
  if (group !== undefined) fixed['Impersonate-Group'] = group;
  const basic =
    user.username !== undefined || user.password !== undefined
      ? `Basic ${Buffer.from(`${user.username ?? ''}:${user.password ?? ''}`).toString('base64')}`
      : undefined;

  const current = async () => {
    const credential: ExecCredential = exec === undefined ? {} : await exec();
    const bearer = token?.() ?? credential.token;
    const authorization = bearer !== undefined ? `Bearer ${bearer}` : basic;
    const fromExec = credential.clientCertificateData !== undefined;
    return {
      headers: { ...fixed, ...opt('Authorization', authorization) },
      tls: {
        ...tls,
        ...opt('ca', ca?.()),
        ...opt('cert', fromExec ? credential.clientCertificateData : cert?.()),
        ...opt('key', fromExec ? credential.clientKeyData : key?.()),
      },
    };
  };
  return Object.assign(current, { refresh: refresh(exec?.invalidate), generation });
}

/** What is read from a kubeconfig but not supported: a ConfigError that says what to use instead. */
function checkSupported(user: KubeUser): void {
  if (user.authProvider !== undefined) {
    throw new ConfigError(
      `kubeconfig user ${user.name} uses auth-provider ${JSON.stringify(user.authProvider)}, which is deprecated and ` +
        'not supported: use an exec credential plugin instead (e.g. gke-gcloud-auth-plugin, kubelogin)',
    );
  }
  if (user.impersonateExtra || (user.impersonate?.groups.length ?? 0) > 1) {
    throw new ConfigError(
      `kubeconfig user ${user.name}: as-user-extra and more than one of as-groups are not supported`,
    );
  }
}

/** The spec.cluster handed to exec plugins with provideClusterInfo. */
function clusterInfo(cluster: KubeCluster): ExecClusterInfo {
  let caData = cluster.caData;
  if (caData === undefined && cluster.caFile !== undefined) {
    try {
      caData = readFileSync(cluster.caFile).toString('base64');
    } catch {
      // Reported by the CA's own file source.
    }
  }
  return {
    server: cluster.server,
    ...opt('tls-server-name', cluster.tlsServerName),
    ...(cluster.insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
    ...opt('certificate-authority-data', caData),
    ...opt('proxy-url', cluster.proxyUrl),
    ...opt('config', cluster.execExtension),
  };
}

/**
 * The bearer token: like client-go, a tokenFile's last good content wins over a static token, which is the
 * fallback when the file cannot be read. Without a static token the file must be readable now.
 */
function tokenSource(
  user: KubeUser,
  clock: Clock,
  ttl: number,
  generation: () => number,
): (() => string | undefined) | undefined {
  const { token, tokenFile } = user;
  if (tokenFile === undefined) return token === undefined ? undefined : () => token;
  let read: (() => Buffer) | undefined;
  try {
    read = fileSource(tokenFile, `the token file of kubeconfig user ${user.name}`, clock, ttl, generation);
  } catch (err) {
    if (token === undefined) throw err;
  }
  return () => {
    const fromFile = read?.().toString('utf8').trim();
    return fromFile === undefined || fromFile === '' ? token : fromFile;
  };
}

const CERTIFICATE = /-----BEGIN CERTIFICATE-----/;
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/**
 * Fails at startup, naming the field, when TLS material holds no PEM block of its kind (TLS would otherwise fail
 * later with a misleading "unable to verify the first certificate"). Never includes the content.
 */
function pem(read: (() => Buffer) | undefined, block: RegExp, what: string): void {
  if (read !== undefined && !block.test(read().toString('latin1'))) {
    throw new ConfigError(
      `${what} holds no PEM ${block === CERTIFICATE ? 'certificate' : 'private key'}: give the base64 of a PEM file (-data) or a PEM file's path`,
    );
  }
}

/** Inline base64 data wins over a file (as client-go's transport does); undefined when neither is set. */
function material(
  data: string | undefined,
  path: string | undefined,
  source: () => () => Buffer,
): (() => Buffer) | undefined {
  if (data !== undefined) {
    const bytes = Buffer.from(data, 'base64');
    return () => bytes;
  }
  return path === undefined ? undefined : source();
}

/**
 * A file read now (a ConfigError if it cannot be) and again once `ttl` has passed or `generation()` has moved on (a
 * refresh after a 401); a failed re-read keeps the last good content (a rotation in progress).
 */
export function fileSource(
  path: string,
  what: string,
  clock: Clock,
  ttl: number,
  generation: () => number = () => 0,
): () => Buffer {
  let value: Buffer;
  try {
    value = readFileSync(path);
  } catch (err) {
    throw new ConfigError(`cannot read ${what} (${path})`, { cause: err });
  }
  let readAt = clock.now();
  let readIn = generation();
  return () => {
    if (clock.now() - readAt >= ttl || readIn !== generation()) {
      readAt = clock.now();
      readIn = generation();
      try {
        const next = readFileSync(path);
        if (!next.equals(value)) value = next;
      } catch {
        // Keep the last good content.
      }
    }
    return value;
  };
}

function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
