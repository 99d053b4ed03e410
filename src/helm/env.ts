// The environment of a helm child: the operator's private helm homes (created 0700 under its work directory, with
// the helm 4 post-renderer plugin) and the variables helm runs with, isolated or the user's own. Called by the CLI
// adapter (cli.ts); never reads process.env (the base environment is passed in) and never writes values to disk.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nonNegativeInt } from './argv.js';
import type { PostRenderer } from './types.js';

/** The name of the helm 4 post-renderer plugin each client writes into its HELM_DATA_HOME. */
export const POST_RENDER_PLUGIN = 'helm-operator-post-render';

/** Variables that would silently retarget or reconfigure helm if inherited from the operator's environment. */
const STRIPPED_PREFIX = 'HELM_';
/**
 * The Go garbage collector's target for helm children: a short-lived helm process spends 12–20 % of its CPU less on
 * collection at GOGC=200 than at Go's 100, for a few MB more peak memory each (docs/operations.md). A GOGC or
 * GOMEMLIMIT in the operator's environment is the user's choice and wins.
 */
const HELM_GOGC = '200';
/**
 * Each helm child runs its Go code on one thread (GOMAXPROCS=1): a helm process is sequential work and API round
 * trips, and with more Ps its garbage collector's idle mark workers spin on the idle ones (about a tenth of a helm
 * install's CPU on 2 cores, docs/operations.md). A GOMAXPROCS in the operator's environment wins.
 */
const HELM_GOMAXPROCS = '1';
/**
 * The message catalogue of kubectl's translations, linked into helm: at every start its package init zips and parses
 * the catalogue of the language in LC_ALL, LC_MESSAGES or LANG, and English (the default, or any language it does not
 * ship) is the largest (350 KB: a tenth of a helm install's CPU). Its strings are the help texts of `kubectl get`,
 * which helm never prints, so the smallest catalogue is chosen (4 KB). The locale is not installed on the image: the
 * post-renderer's bash keeps its C messages.
 */
export const HELM_CATALOGUE_LOCALE = 'zh_TW.UTF-8';
/** Locale variables that would make kubectl's init read a larger catalogue (LC_ALL overrides LC_MESSAGES). */
const CATALOGUE_VARS: ReadonlySet<string> = new Set(['LC_ALL', 'LC_MESSAGES']);
/** HELM_* variables an operator may legitimately tune for its helm children. */
const KEPT_HELM_VARS: ReadonlySet<string> = new Set(['HELM_BURST_LIMIT', 'HELM_QPS']);

export interface HelmEnvInput {
  readonly base: Readonly<Record<string, string | undefined>>;
  readonly kubeconfig?: string | undefined;
  readonly cacheHome: string;
  readonly configHome: string;
  readonly dataHome: string;
  readonly kubeCacheDir: string;
  readonly historyMax: number;
  /** helm's client-side API rate (HELM_QPS, HELM_BURST_LIMIT) unless `base` sets it; negative qps: none. */
  readonly rateLimit?: HelmRateLimit | undefined;
}

/** helm's own client-side limit of API requests: qps < 0 turns it off (client-go builds no token bucket). */
export interface HelmRateLimit {
  readonly qps: number;
  /** @default helm's (100) */
  readonly burst?: number | undefined;
}

/**
 * The complete environment of a helm child: `base` without undefined entries and without HELM_* variables (except
 * HELM_BURST_LIMIT/HELM_QPS, which win over `rateLimit`) and LC_ALL/LC_MESSAGES, then the operator's own settings.
 * Storage is pinned to Secrets (HELM_DRIVER=secret) because release state is read from Secrets elsewhere; GOGC is
 * HELM_GOGC unless `base` sets GOGC or GOMEMLIMIT, GOMAXPROCS HELM_GOMAXPROCS unless `base` sets it, and LC_MESSAGES
 * names the smallest of kubectl's catalogues.
 */
export function helmEnv(input: HelmEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.base)) {
    if (value === undefined) continue;
    if (key.toUpperCase().startsWith(STRIPPED_PREFIX) && !KEPT_HELM_VARS.has(key)) continue;
    if (CATALOGUE_VARS.has(key)) continue;
    env[key] = value;
  }
  if (input.kubeconfig !== undefined) env.KUBECONFIG = input.kubeconfig;
  env.HELM_CACHE_HOME = input.cacheHome;
  env.HELM_CONFIG_HOME = input.configHome;
  env.HELM_DATA_HOME = input.dataHome;
  env.HELM_DRIVER = 'secret';
  env.HELM_MAX_HISTORY = nonNegativeInt('historyMax', input.historyMax);
  env.KUBECACHEDIR = input.kubeCacheDir;
  env.NO_COLOR = '1';
  if (env.GOGC === undefined && env.GOMEMLIMIT === undefined) env.GOGC = HELM_GOGC;
  env.GOMAXPROCS ??= HELM_GOMAXPROCS;
  env.LC_MESSAGES = HELM_CATALOGUE_LOCALE;
  const limit = input.rateLimit;
  if (limit && env.HELM_QPS === undefined && env.HELM_BURST_LIMIT === undefined) {
    env.HELM_QPS = String(limit.qps);
    if (limit.burst !== undefined) env.HELM_BURST_LIMIT = nonNegativeInt('burst', limit.burst);
  }
  return env;
}

export interface UserHelmEnvInput {
  readonly base: Readonly<Record<string, string | undefined>>;
  readonly kubeconfig?: string | undefined;
}

/**
 * The environment of a helm child that scaffolds for a user (`create api`): `base` as it is, HELM_* variables
 * included, so that helm finds the user's repositories.yaml, registry logins, caches and plugins in their usual
 * homes. The opposite of helmEnv, which isolates the operator's helm from whatever the machine has configured.
 */
export function userHelmEnv(input: UserHelmEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.base)) if (value !== undefined) env[key] = value;
  if (input.kubeconfig !== undefined) env.KUBECONFIG = input.kubeconfig;
  env.NO_COLOR = '1';
  return env;
}

export interface HelmHomesInput {
  /** Operator-private directory: the homes go under `helm-XXXXXX/`, the shared discovery cache in `kube-cache/`. */
  readonly workDir: string;
  readonly base: Readonly<Record<string, string | undefined>>;
  readonly kubeconfig?: string | undefined;
  readonly historyMax: number;
  readonly rateLimit?: HelmRateLimit | undefined;
  /** Installed as the postrenderer/v1 plugin POST_RENDER_PLUGIN (helm 4 finds post-renderers only as plugins). */
  readonly postRenderer?: PostRenderer | undefined;
}

/** Creates a client's own HELM_CACHE_HOME, HELM_CONFIG_HOME and HELM_DATA_HOME (0700) and returns its helmEnv. */
export async function createHelmHomes(input: HelmHomesInput): Promise<Record<string, string>> {
  await mkdir(input.workDir, { recursive: true, mode: 0o700 });
  const kubeCacheDir = join(input.workDir, 'kube-cache');
  await mkdir(kubeCacheDir, { recursive: true, mode: 0o700 });
  const home = await mkdtemp(join(input.workDir, 'helm-'));
  const homes = { cacheHome: join(home, 'cache'), configHome: join(home, 'config'), dataHome: join(home, 'data') };
  await Promise.all(Object.values(homes).map((dir) => mkdir(dir, { mode: 0o700 })));
  if (input.postRenderer) await writePostRenderPlugin(join(homes.dataHome, 'plugins'), input.postRenderer);
  const { base, kubeconfig, historyMax, rateLimit } = input;
  return helmEnv({ base, kubeconfig, ...homes, kubeCacheDir, historyMax, rateLimit });
}

/**
 * helm 4 finds post-renderers only as plugins: a subprocess plugin whose command is the post-renderer, in the
 * default plugin directory of this client's HELM_DATA_HOME. JSON strings keep paths intact in the YAML.
 */
async function writePostRenderPlugin(pluginsDir: string, pr: PostRenderer): Promise<void> {
  const dir = join(pluginsDir, POST_RENDER_PLUGIN);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const yaml = [
    'apiVersion: v1',
    'type: postrenderer/v1',
    `name: ${POST_RENDER_PLUGIN}`,
    'version: 1.0.0',
    'runtime: subprocess',
    'runtimeConfig:',
    '  platformCommand:',
    `    - command: ${JSON.stringify(pr.command)}`,
    `      args: ${JSON.stringify(pr.args)}`,
    '',
  ].join('\n');
  await writeFile(join(dir, 'plugin.yaml'), yaml, { mode: 0o600 });
}
