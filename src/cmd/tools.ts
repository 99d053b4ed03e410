// The composition of the CLI's tool commands (everything but `run`): undeploy and cleanup build the real kube
// client and helm adapter from the environment cli.ts hands over, the scaffolding commands build theirs. Each
// command imports its own modules when it runs (only light ones are imported here), so `--help` loads almost nothing.
// Called only by cli.ts; never reads process.* itself (env, cwd and stdio come in) and never exits.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseDuration } from '../core/duration.js';
import { ConfigError } from '../core/errors.js';
import type { CreateApiOptions } from '../scaffold/api/flags.js';
import type { DiscoverKind } from '../scaffold/rbac/rules.js';
import { HELM_BINARY_USAGE, parseToolFlags, takeHelmBinary } from './flags/tool.js';
import { readAll } from './read-all.js';

export interface ToolIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

export const UNDEPLOY_USAGE = `Usage: helm-operator undeploy -f FILE|- [--timeout=5m] [--dry-run]

Deletes every custom resource of the deployment's CRDs (all namespaces) and waits while the operator still runs
until their releases are uninstalled; then deletes the operator, its RBAC, the CRDs and the namespace.
FILE is the rendered deployment, e.g. \`kubectl kustomize config/default | helm-operator undeploy -f -\`.
`;

export const CLEANUP_USAGE = `Usage: helm-operator cleanup [--watches-file=./watches.yaml] [--namespace=NS] [--dry-run] [--yes]
                            [--helm-binary=PATH]

For custom resources whose operator is gone: uninstalls each release, deletes the CR and removes the operator's
finalizers. Prints the plan; --dry-run stops there; otherwise asks for confirmation (--yes skips the question).
${HELM_BINARY_USAGE}`;

/** Prints `usage` when argv asks for help. */
export function wantsHelp(argv: readonly string[], io: ToolIo, usage: string): boolean {
  if (!argv.includes('--help') && !argv.includes('-h')) return false;
  io.stdout.write(usage);
  return true;
}

/** The `-f` argument's content: standard input for `-`, else the file (relative to the working directory). */
function readInput(file: string, io: ToolIo): Promise<string> {
  return file === '-' ? readAll(io.stdin) : Promise.resolve(readFileSync(resolve(io.cwd, file), 'utf8'));
}

const say = (io: ToolIo) => (line: string) => io.stdout.write(`${line}\n`);

export async function runUndeploy(argv: readonly string[], io: ToolIo, signal: AbortSignal): Promise<number> {
  if (wantsHelp(argv, io, UNDEPLOY_USAGE)) return 0;
  const flags = parseToolFlags(
    'undeploy',
    argv,
    { file: 'string', timeout: 'string', 'dry-run': 'bool' },
    { f: 'file' },
  );
  const file = flags.get('file');
  if (typeof file !== 'string') throw new ConfigError('undeploy: -f FILE (or - for stdin) is required');
  const manifest = await readInput(file, io);
  const timeoutMs = parseDuration(String(flags.get('timeout') ?? '5m'));
  const [{ createKubeClient }, { realClock }, { undeploy }] = await Promise.all([
    import('../kube/client.js'),
    import('../core/clock.js'),
    import('../deploy/undeploy.js'),
  ]);
  const kube = createKubeClient({ env: io.env }).client;
  await undeploy(
    { manifest, timeoutMs, dryRun: flags.get('dry-run') === true },
    { kube, clock: realClock, say: say(io) },
    signal,
  );
  return 0;
}

export async function runCleanup(argv: readonly string[], io: ToolIo, signal: AbortSignal): Promise<number> {
  if (wantsHelp(argv, io, CLEANUP_USAGE)) return 0;
  const { binary, rest } = takeHelmBinary('cleanup', argv, io.env);
  const flags = parseToolFlags('cleanup', rest, {
    'watches-file': 'string',
    namespace: 'string',
    'dry-run': 'bool',
    yes: 'bool',
  });
  const [{ loadWatches }, { chartName }, { createKubeClient }, { createHelmCli }, { releaseReader }, { cleanup }] =
    await Promise.all([
      import('../config/watches.js'),
      import('../config/chart-dir.js'),
      import('../kube/client.js'),
      import('../helm/cli.js'),
      import('../records/reader.js'),
      import('../deploy/free-stranded.js'),
    ]);
  const { watches } = loadWatches(String(flags.get('watches-file') ?? './watches.yaml'), { env: io.env, cwd: io.cwd });
  const kube = createKubeClient({ env: io.env }).client;
  const workDir = await mkdtemp(join(tmpdir(), 'helm-operator-cleanup-'));
  try {
    const helm = createHelmCli({ binary, workDir, env: io.env });
    const confirm = async (question: string) => {
      if (flags.get('yes') === true) return true;
      if (!io.stdin.isTTY) {
        throw new ConfigError('cleanup: refusing to change the cluster without a terminal to ask; pass --yes');
      }
      const rl = createInterface({ input: io.stdin, output: io.stdout });
      try {
        return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
      } finally {
        rl.close();
      }
    };
    await cleanup(
      {
        watches,
        chartNames: watches.map((w) => chartName(w.chart)),
        namespace: String(flags.get('namespace') ?? ''),
        dryRun: flags.get('dry-run') === true,
      },
      { kube, helm, releases: releaseReader(kube), say: say(io), confirm },
      signal,
    );
    return 0;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

export async function runInitCommand(argv: readonly string[], io: ToolIo, signal: AbortSignal): Promise<number> {
  const { INIT_USAGE, parseInitArgs, splitInitArgs } = await import('../scaffold/init/flags.js');
  if (wantsHelp(argv, io, INIT_USAGE)) return 0;
  const { binary, rest } = takeHelmBinary('init', argv, io.env);
  const split = splitInitArgs(rest);
  const initOptions = parseInitArgs(split.init, io.cwd);
  // Both commands' flags are checked before anything is written.
  const api =
    split.api.length === 0
      ? undefined
      : (await import('../scaffold/api/flags.js')).parseCreateApiArgs(split.api, io.cwd);
  const { runInit } = await import('../scaffold/init/init.js');
  const result = await runInit(initOptions, signal);
  for (const w of result.warnings) io.stderr.write(`warning: ${w}\n`);
  for (const f of result.written) io.stdout.write(`wrote ${f}\n`);
  if (result.skipped.length > 0) io.stdout.write(`unchanged: ${result.skipped.join(', ')}\n`);
  if (api !== undefined) return createApiAndReport(api, binary, io, signal);
  io.stdout.write(
    'Next: helm-operator create api --helm-chart=<dir|.tgz|repo/chart|oci://…> (or --group/--version/--kind)\n',
  );
  return 0;
}

export const BUNDLE_USAGE = `Usage: helm-operator generate bundle -f FILE|- --version=X.Y.Z [--channels=alpha] [--default-channel=alpha]
       [--image=IMG] [--package=NAME]

Writes bundle/manifests (ClusterServiceVersion, CRDs, …), bundle/metadata/annotations.yaml and bundle.Dockerfile
from the rendered config/manifests (\`kubectl kustomize config/manifests | helm-operator generate bundle -f - …\`),
then validates the bundle. The package name defaults to the PROJECT file's projectName.
`;

export async function runGenerateBundle(argv: readonly string[], io: ToolIo, signal: AbortSignal): Promise<number> {
  if (wantsHelp(argv, io, BUNDLE_USAGE)) return 0;
  const flags = parseToolFlags(
    'generate bundle',
    argv,
    {
      file: 'string',
      version: 'string',
      channels: 'string',
      'default-channel': 'string',
      image: 'string',
      package: 'string',
    },
    { f: 'file' },
  );
  const file = flags.get('file');
  if (typeof file !== 'string') throw new ConfigError('generate bundle: -f FILE (or - for stdin) is required');
  const version = flags.get('version');
  if (typeof version !== 'string') throw new ConfigError('generate bundle: --version=X.Y.Z is required');
  const text = await readInput(file, io);
  const [{ manifestObjects }, { generateBundle }, { validateBundle }, { writeFiles }, { readProject }] =
    await Promise.all([
      import('../helm/manifest.js'),
      import('../scaffold/bundle/bundle.js'),
      import('../scaffold/bundle/validate.js'),
      import('../scaffold/files.js'),
      import('../scaffold/init/init.js'),
    ]);
  const pkg = flags.get('package');
  const packageName = typeof pkg === 'string' ? pkg : (await readProject(io.cwd, signal)).projectName;
  const str = (k: string) => (typeof flags.get(k) === 'string' ? String(flags.get(k)) : undefined);
  const channels = str('channels')?.split(',').filter(Boolean);
  const defaultChannel = str('default-channel');
  const image = str('image');
  const result = generateBundle({
    objects: manifestObjects(text),
    packageName,
    version: version.replace(/^v/, ''),
    ...(channels ? { channels } : {}),
    ...(defaultChannel ? { defaultChannel } : {}),
    ...(image ? { image } : {}),
  });
  for (const w of result.warnings) io.stderr.write(`warning: ${w}\n`);
  await writeFiles(io.cwd, result.files, { force: true, signal });
  for (const f of Object.keys(result.files).sort()) io.stdout.write(`wrote ${f}\n`);
  const problems = await validateBundle(join(io.cwd, 'bundle'), { signal });
  for (const p of problems) io.stderr.write(`invalid bundle: ${p}\n`);
  if (problems.length > 0) return 1;
  io.stdout.write('bundle is valid\n');
  return 0;
}

/** The user's helm (their repositories and registry logins) and, when a cluster answers, its discovery. */
async function scaffoldDeps(binary: string, io: ToolIo, signal: AbortSignal) {
  const [{ createHelmCli }, { createKubeClient }, { discoverFromKube }] = await Promise.all([
    import('../helm/cli.js'),
    import('../kube/client.js'),
    import('../scaffold/rbac/rules.js'),
  ]);
  const helm = createHelmCli({ binary, workDir: tmpdir(), env: io.env, isolated: false });
  let discover: DiscoverKind | undefined;
  try {
    const kube = createKubeClient({ env: io.env }).client;
    await kube.serverVersion({ signal: AbortSignal.any([signal, AbortSignal.timeout(3_000)]) });
    discover = discoverFromKube(kube);
  } catch {
    // No cluster: the built-in kind table and the chart's own CRDs must cover every kind (or a clear error says so).
  }
  return { helm, discover };
}

export async function runCreateApi(argv: readonly string[], io: ToolIo, signal: AbortSignal): Promise<number> {
  const { CREATE_API_USAGE, parseCreateApiArgs } = await import('../scaffold/api/flags.js');
  if (wantsHelp(argv, io, CREATE_API_USAGE + HELM_BINARY_USAGE)) return 0;
  const { binary, rest } = takeHelmBinary('create api', argv, io.env);
  return createApiAndReport(parseCreateApiArgs(rest, io.cwd), binary, io, signal);
}

async function createApiAndReport(
  opts: CreateApiOptions,
  binary: string,
  io: ToolIo,
  signal: AbortSignal,
): Promise<number> {
  const deps = {
    ...(await scaffoldDeps(binary, io, signal)),
    progress: (line: string) => io.stderr.write(`${line}\n`),
  };
  const { createApi } = await import('../scaffold/api/api.js');
  const r = await createApi(opts, deps, signal);
  for (const w of r.warnings) io.stderr.write(`warning: ${w}\n`);
  for (const f of r.written) io.stdout.write(`wrote ${f}\n`);
  io.stdout.write(`created ${r.kind} (${r.group}/${r.version}, ${r.plural}) from ${r.chart}\n`);
  return 0;
}

export async function runGenerateRbac(argv: readonly string[], io: ToolIo, signal: AbortSignal): Promise<number> {
  const { GENERATE_RBAC_USAGE, parseGenerateRbacArgs } = await import('../scaffold/rbac/generate-flags.js');
  if (wantsHelp(argv, io, GENERATE_RBAC_USAGE + HELM_BINARY_USAGE)) return 0;
  const { binary, rest } = takeHelmBinary('generate rbac', argv, io.env);
  const { generateRbac } = await import('../scaffold/rbac/rbac.js');
  const r = await generateRbac(parseGenerateRbacArgs(rest, io.cwd), await scaffoldDeps(binary, io, signal), signal);
  for (const w of r.warnings) io.stderr.write(`warning: ${w}\n`);
  for (const f of r.created) io.stdout.write(`wrote ${f}\n`);
  io.stdout.write(`wrote ${r.file} (${r.rules.length} rules)\n`);
  return 0;
}

/** `helm-operator bundle validate` (bundle-validate.ts), loaded when it runs. */
export async function runBundleValidate(argv: readonly string[], io: ToolIo, signal: AbortSignal): Promise<number> {
  const { BUNDLE_VALIDATE_USAGE, runBundleValidate: run } = await import('./bundle-validate.js');
  if (wantsHelp(argv, io, BUNDLE_VALIDATE_USAGE)) return 0;
  return run(argv, io, signal);
}

/** `helm-operator pack` (pack.ts), loaded when it runs. */
export async function runPack(argv: readonly string[], io: ToolIo, signal: AbortSignal): Promise<number> {
  return (await import('./pack.js')).runPack(argv, io, signal);
}

/** `helm-operator olm install|status|uninstall` (olm.ts), loaded when it runs. */
async function runOlmVerb(
  verb: 'install' | 'status' | 'uninstall',
  argv: readonly string[],
  io: ToolIo,
  signal: AbortSignal,
) {
  const olm = await import('./olm.js');
  const usage = { install: olm.OLM_INSTALL_USAGE, status: olm.OLM_STATUS_USAGE, uninstall: olm.OLM_UNINSTALL_USAGE }[
    verb
  ];
  if (wantsHelp(argv, io, usage)) return 0;
  return olm.runOlm(verb, argv, io, signal);
}
export const runOlmInstall = (argv: readonly string[], io: ToolIo, signal: AbortSignal) =>
  runOlmVerb('install', argv, io, signal);
export const runOlmStatus = (argv: readonly string[], io: ToolIo, signal: AbortSignal) =>
  runOlmVerb('status', argv, io, signal);
export const runOlmUninstall = (argv: readonly string[], io: ToolIo, signal: AbortSignal) =>
  runOlmVerb('uninstall', argv, io, signal);

/** `helm-operator run bundle|bundle-upgrade IMG` and `cleanup PACKAGE` (run-bundle.ts), loaded when they run. */
export async function runRunBundle(argv: readonly string[], io: ToolIo, signal: AbortSignal): Promise<number> {
  const m = await import('./run-bundle.js');
  if (wantsHelp(argv, io, m.RUN_BUNDLE_USAGE)) return 0;
  return m.runBundleCommand('bundle', argv, io, signal);
}
export async function runRunBundleUpgrade(argv: readonly string[], io: ToolIo, signal: AbortSignal): Promise<number> {
  const m = await import('./run-bundle.js');
  if (wantsHelp(argv, io, m.RUN_BUNDLE_UPGRADE_USAGE)) return 0;
  return m.runBundleCommand('bundle-upgrade', argv, io, signal);
}
export async function runCleanupPackage(argv: readonly string[], io: ToolIo, signal: AbortSignal): Promise<number> {
  const m = await import('./run-bundle.js');
  if (wantsHelp(argv, io, m.CLEANUP_PACKAGE_USAGE)) return 0;
  return m.cleanupPackageCommand(argv, io, signal);
}
