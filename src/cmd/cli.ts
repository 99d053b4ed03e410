// The `helm-operator` CLI (composition root): picks the command and hands it the process (the argv main.ts passes,
// env, stdio, signals), loading only what the command uses: run.ts (the whole operator) for `run`, tools.ts for the
// tools; `version` and every --help load neither. Loaded by main.ts once the Node version is known to be good.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OperatorError } from '../core/errors.js';
import { VERSION } from '../version.js';
import { RUN_USAGE } from './flags/run-usage.js';
import { HELM_BINARY_USAGE, parseToolFlags, takeHelmBinary } from './flags/tool.js';
import { GROUPS, type Group, pickSubcommand, USAGE } from './usage.js';

/**
 * The tool commands, by command line, and the function of tools.ts that runs each. tools.ts is loaded only for
 * them, and loads each command's own modules when it runs: adding a command is its function there, one line here
 * (and, for a subcommand of a group, one in usage.ts's GROUPS) and its line in USAGE.
 */
const TOOLS = {
  undeploy: 'runUndeploy',
  cleanup: 'runCleanup',
  init: 'runInitCommand',
  'generate bundle': 'runGenerateBundle',
  'generate rbac': 'runGenerateRbac',
  'bundle validate': 'runBundleValidate',
  'olm install': 'runOlmInstall',
  'olm status': 'runOlmStatus',
  'olm uninstall': 'runOlmUninstall',
  'run bundle': 'runRunBundle',
  'run bundle-upgrade': 'runRunBundleUpgrade',
  'cleanup PACKAGE': 'runCleanupPackage',
  'create api': 'runCreateApi',
  pack: 'runPack',
} as const;
type Tool = keyof typeof TOOLS;
const isTool = (name: string): name is Tool => Object.hasOwn(TOOLS, name);
const isGroup = (name: string): name is Group => Object.hasOwn(GROUPS, name);
const wantsHelp = (argv: readonly string[]) => argv.includes('--help') || argv.includes('-h');

export const VERSION_USAGE = `Usage: helm-operator version [--helm] [--helm-binary=PATH]

Prints the operator's version and Node's. --helm also runs helm and prints the version it reports.
${HELM_BINARY_USAGE}`;

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `helm-operator version`: no helm process unless asked (--helm, --helm-binary), as operator-sdk's prints its own. */
async function version(argv: readonly string[]): Promise<number> {
  if (wantsHelp(argv)) {
    process.stdout.write(VERSION_USAGE);
    return 0;
  }
  let binary: string | undefined;
  try {
    const taken = takeHelmBinary('version', argv, process.env);
    const flags = parseToolFlags('version', taken.rest, { helm: 'bool' });
    if (flags.get('helm') === true || taken.rest.length < argv.length) binary = taken.binary;
  } catch (err) {
    process.stderr.write(`helm-operator ${message(err)}\n`);
    return 2;
  }
  const helm = binary === undefined ? '' : `, helm: "${await helmVersion(binary)}"`;
  process.stdout.write(`helm-operator-ts version: "${VERSION}", node version: "${process.version}"${helm}\n`);
  return 0;
}

/** What `helm version` reports, or why it could not. The helm adapter is loaded only here. */
async function helmVersion(binary: string): Promise<string> {
  const workDir = mkdtempSync(join(tmpdir(), 'helm-operator-'));
  try {
    const { createHelmCli } = await import('../helm/cli.js');
    const v = await createHelmCli({ binary, workDir, env: process.env }).version({
      signal: AbortSignal.timeout(30_000),
    });
    return v.version;
  } catch (err) {
    return `unavailable (${message(err)})`;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** `helm-operator run`: its usage needs no part of the operator, the operator is loaded only to run it. */
async function run(argv: readonly string[]): Promise<number> {
  if (wantsHelp(argv)) {
    process.stdout.write(RUN_USAGE);
    return 0;
  }
  const { runOperator } = await import('./run.js');
  return runOperator(argv);
}

/** Runs a tool command with the real environment; Ctrl-C aborts it; errors print one line and exit 1. */
async function tool(cmd: Tool, argv: readonly string[]): Promise<number> {
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

/**
 * operator-sdk's OLM commands that share a first word with others: `run bundle IMG` and `run bundle-upgrade IMG`
 * (`run` alone runs the operator) and `cleanup PACKAGE` (a positional argument: `cleanup` without one frees CRs whose
 * operator is gone). The tool and its arguments, or undefined.
 */
function olmCommand(cmd: string | undefined, rest: readonly string[]): [Tool, readonly string[]] | undefined {
  const sub = rest[0];
  if (cmd === 'run' && (sub === 'bundle' || sub === 'bundle-upgrade')) return [`run ${sub}`, rest.slice(1)];
  // A value of a flag given as its own word is no package.
  const valued = /^(-n|--namespace|--timeout|--watches-file|--helm-binary)$/;
  if (cmd === 'cleanup' && rest.some((a, i) => !a.startsWith('-') && !valued.test(rest[i - 1] ?? ''))) {
    return ['cleanup PACKAGE', rest];
  }
  return undefined;
}

/** Runs one `helm-operator` command line; resolves to the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  const olm = olmCommand(cmd, rest);
  if (olm !== undefined) return tool(olm[0], olm[1]);
  switch (cmd) {
    case 'run':
      return run(rest);
    case 'version':
      return version(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return cmd === undefined ? 2 : 0;
  }
  if (isTool(cmd)) return tool(cmd, rest);
  if (isGroup(cmd)) {
    const [sub, ...args] = rest;
    const picked = pickSubcommand(cmd, sub, process);
    if (typeof picked === 'number') return picked;
    const name = `${cmd} ${picked}`;
    if (isTool(name)) return tool(name, args);
  }
  process.stderr.write(`helm-operator: unknown command ${JSON.stringify(cmd)}\n\n${USAGE}`);
  return 2;
}
