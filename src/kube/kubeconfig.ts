// Reads kubeconfig files (YAML or JSON) into plain data, merges several like kubectl (the first file to define a
// name or current-context wins; relative paths resolve against the defining file's folder) and selects a context.
// Called by kube/client.ts. Never puts file content in an error (kubeconfigs hold credentials): paths, names, lines.

import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { parse } from '../config/yaml.js';
import { ConfigError } from '../core/errors.js';

export interface KubeCluster {
  readonly name: string;
  readonly server: string;
  readonly caFile?: string;
  /** Base64 from certificate-authority-data; wins over caFile. */
  readonly caData?: string;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName?: string;
  readonly proxyUrl?: string;
  /** extensions[client.authentication.k8s.io/exec].extension, handed to exec plugins with provideClusterInfo. */
  readonly execExtension?: unknown;
}

export interface ExecConfig {
  readonly apiVersion: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: readonly { readonly name: string; readonly value: string }[];
  readonly installHint?: string;
  readonly provideClusterInfo: boolean;
  readonly interactiveMode?: string;
}

export interface KubeUser {
  readonly name: string;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly certFile?: string;
  /** Base64 from client-certificate-data; wins over certFile. */
  readonly certData?: string;
  readonly keyFile?: string;
  readonly keyData?: string;
  readonly username?: string;
  readonly password?: string;
  readonly exec?: ExecConfig;
  /** The auth-provider's name (gcp, azure, oidc…): not supported, reported when the user is selected. */
  readonly authProvider?: string;
  readonly impersonate?: { readonly user?: string; readonly uid?: string; readonly groups: readonly string[] };
  /** as-user-extra is set (not supported). */
  readonly impersonateExtra: boolean;
}

export interface KubeContext {
  readonly name: string;
  readonly cluster: string;
  readonly user?: string;
  readonly namespace?: string;
}

export interface KubeConfigData {
  readonly clusters: ReadonlyMap<string, KubeCluster>;
  readonly users: ReadonlyMap<string, KubeUser>;
  readonly contexts: ReadonlyMap<string, KubeContext>;
  readonly currentContext: string;
}

/** What a client connects with: one context, its cluster and (if any) its user. */
export interface SelectedConfig {
  readonly context: string;
  readonly cluster: KubeCluster;
  readonly user?: KubeUser;
  readonly namespace?: string;
}

/** Reads and merges kubeconfig files in order; `what` says where the list came from, for errors. */
export function loadKubeconfigFiles(files: readonly string[], what: string): KubeConfigData {
  return mergeKubeconfigs(
    files.map((file) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        throw new ConfigError(`cannot read the kubeconfig file ${file} (from ${what})`, { cause: err });
      }
      return parseKubeconfig(text, file, what);
    }),
  );
}

/** Merges parsed files, first definition wins (kubectl's rule for KUBECONFIG lists). */
export function mergeKubeconfigs(configs: readonly KubeConfigData[]): KubeConfigData {
  const clusters = new Map<string, KubeCluster>();
  const users = new Map<string, KubeUser>();
  const contexts = new Map<string, KubeContext>();
  let currentContext = '';
  for (const c of configs) {
    for (const [k, v] of c.clusters) if (!clusters.has(k)) clusters.set(k, v);
    for (const [k, v] of c.users) if (!users.has(k)) users.set(k, v);
    for (const [k, v] of c.contexts) if (!contexts.has(k)) contexts.set(k, v);
    if (currentContext === '') currentContext = c.currentContext;
  }
  return { clusters, users, contexts, currentContext };
}

/** Parses one kubeconfig file's text; relative paths in it resolve against `file`'s folder. */
export function parseKubeconfig(text: string, file: string, what = 'the kubeconfig path'): KubeConfigData {
  let doc: unknown;
  try {
    // failsafe: every scalar stays a string, so tokens like 0123 or yes are not turned into numbers or booleans.
    doc = parse(text, { schema: 'failsafe' });
  } catch (err) {
    // The parser's message quotes the offending line (maybe a credential): only the position is reported.
    const pos = (err as { linePos?: readonly { line: number; col: number }[] }).linePos?.[0];
    const at = pos === undefined ? '' : ` (line ${pos.line}, column ${pos.col})`;
    throw new ConfigError(`the kubeconfig file ${file} (from ${what}) is not valid YAML${at}`);
  }
  if (doc !== null && doc !== undefined && !isObject(doc)) {
    throw new ConfigError(`the kubeconfig file ${file} (from ${what}) is not a YAML mapping`);
  }
  const root = isObject(doc) ? doc : {};
  const base = dirname(resolve(file));
  const path = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : resolve(base, p));
  const where = (list: string, i: number) => `${list}[${i}] in ${file}`;

  const clusters = new Map<string, KubeCluster>();
  for (const [, entry] of named(root.clusters, 'cluster', where.bind(null, 'clusters'))) {
    const c = entry.body;
    const ext = list(c.extensions).find((e) => isObject(e) && e.name === 'client.authentication.k8s.io/exec');
    add(clusters, entry.name, {
      name: entry.name,
      server: str(c.server) ?? '',
      ...opt('caFile', path(str(c['certificate-authority']))),
      ...opt('caData', str(c['certificate-authority-data'])),
      insecureSkipTlsVerify: bool(c['insecure-skip-tls-verify']),
      ...opt('tlsServerName', str(c['tls-server-name'])),
      ...opt('proxyUrl', str(c['proxy-url'])),
      ...(isObject(ext) && ext.extension !== undefined ? { execExtension: ext.extension } : {}),
    });
  }
  const users = new Map<string, KubeUser>();
  for (const [i, entry] of named(root.users, 'user', where.bind(null, 'users'))) {
    const u = entry.body;
    const provider = isObject(u['auth-provider']) ? (str(u['auth-provider'].name) ?? 'unnamed') : undefined;
    const groups = list(u['as-groups']).flatMap((g) => str(g) ?? []);
    const as = str(u.as);
    const asUid = str(u['as-uid']);
    add(users, entry.name, {
      name: entry.name,
      ...opt('token', str(u.token)),
      ...opt('tokenFile', path(str(u.tokenFile) ?? str(u['token-file']))),
      ...opt('certFile', path(str(u['client-certificate']))),
      ...opt('certData', str(u['client-certificate-data'])),
      ...opt('keyFile', path(str(u['client-key']))),
      ...opt('keyData', str(u['client-key-data'])),
      ...opt('username', str(u.username)),
      ...opt('password', str(u.password)),
      ...(isObject(u.exec) ? { exec: execConfig(u.exec, base, where('users', i)) } : {}),
      ...opt('authProvider', provider),
      ...(as !== undefined || asUid !== undefined || groups.length > 0
        ? { impersonate: { ...opt('user', as), ...opt('uid', asUid), groups } }
        : {}),
      impersonateExtra: isObject(u['as-user-extra']) && Object.keys(u['as-user-extra']).length > 0,
    });
  }
  const contexts = new Map<string, KubeContext>();
  for (const [, entry] of named(root.contexts, 'context', where.bind(null, 'contexts'))) {
    const c = entry.body;
    add(contexts, entry.name, {
      name: entry.name,
      cluster: str(c.cluster) ?? '',
      ...opt('user', str(c.user)),
      ...opt('namespace', str(c.namespace)),
    });
  }
  return { clusters, users, contexts, currentContext: str(root['current-context']) ?? '' };
}

/** The context to use (`override` or current-context), validated: its cluster has a server, its user exists. */
export function selectContext(config: KubeConfigData, source: string, override?: string): SelectedConfig {
  const name = override ?? config.currentContext;
  const context = config.contexts.get(name);
  if (context === undefined) {
    if (override !== undefined) throw new ConfigError(`kubeconfig context ${JSON.stringify(override)} does not exist`);
    if (name === '') throw new ConfigError(`kubeconfig (${source}) has no current-context`);
    throw new ConfigError(`kubeconfig (${source}): the current-context ${JSON.stringify(name)} does not exist`);
  }
  const cluster = config.clusters.get(context.cluster);
  if (cluster === undefined) {
    throw new ConfigError(`kubeconfig (${source}) has no cluster for context ${JSON.stringify(name)}`);
  }
  if (cluster.server === '') throw new ConfigError(`kubeconfig cluster ${cluster.name} has no server`);
  let user: KubeUser | undefined;
  if (context.user !== undefined) {
    user = config.users.get(context.user);
    if (user === undefined) {
      throw new ConfigError(
        `kubeconfig (${source}): user ${JSON.stringify(context.user)} of context ${name} not found`,
      );
    }
  }
  return { context: name, cluster, ...(user ? { user } : {}), ...opt('namespace', context.namespace) };
}

function execConfig(e: Record<string, unknown>, base: string, where: string): ExecConfig {
  const command = str(e.command);
  if (command === undefined) throw new ConfigError(`${where}: exec has no command`);
  const env = list(e.env).flatMap((v) => {
    const n = isObject(v) ? str(v.name) : undefined;
    return n === undefined || !isObject(v) ? [] : [{ name: n, value: typeof v.value === 'string' ? v.value : '' }];
  });
  return {
    apiVersion: str(e.apiVersion) ?? '',
    // As kubectl: a command with a path separator is a path (relative to the file); otherwise it is looked up on PATH.
    command: command.includes(sep) && !isAbsolute(command) ? resolve(base, command) : command,
    args: list(e.args).flatMap((a) => (typeof a === 'string' ? [a] : [])),
    env,
    ...opt('installHint', str(e.installHint)),
    provideClusterInfo: bool(e.provideClusterInfo),
    ...opt('interactiveMode', str(e.interactiveMode)),
  };
}

type Entry = { readonly name: string; readonly body: Record<string, unknown> };

/** Entries of a named list (`- name: x\n  cluster: {...}`); entries without a name are an error, as in kubectl. */
function named(value: unknown, key: string, where: (i: number) => string): [number, Entry][] {
  return list(value).map((e, i) => {
    const name = isObject(e) ? str(e.name) : undefined;
    if (name === undefined || !isObject(e)) throw new ConfigError(`${where(i)} has no name`);
    const body = e[key];
    return [i, { name, body: isObject(body) ? body : {} }];
  });
}

/** Within one file, a repeated name keeps its first entry (as the merge across files does). */
function add<T>(map: Map<string, T>, name: string, value: T): void {
  if (!map.has(name)) map.set(name, value);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** A failsafe-schema scalar; empty and null spellings count as absent. */
function str(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  return v === '' || v === '~' || v === 'null' || v === 'Null' || v === 'NULL' ? undefined : v;
}

/** YAML 1.1 booleans, as Go's kubeconfig reader understands them. */
function bool(v: unknown): boolean {
  return typeof v === 'string' && /^(true|True|TRUE|yes|Yes|YES|on|On|ON|y|Y)$/.test(v);
}

function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
