// `helm-operator bundle validate DIR`: checks an OLM bundle directory by the rules of operator-registry's format check
// and operator-framework/api's default validators (optionally its `operatorframework` suite), as operator-sdk's
// `bundle validate` does, and prints each error and warning naming the file and field. Called by tools.ts (its
// runBundleValidate); reads no process.* (cwd and streams come in); never writes files.
import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { parseToolFlags } from './flags/tool.js';

export const BUNDLE_VALIDATE_USAGE = `Usage: helm-operator bundle validate DIR [--select-optional=suite=operatorframework] [--output=text|json]

Checks the bundle in DIR (the folder holding manifests/ and metadata/, e.g. bundle) by the rules of operator-sdk's
\`bundle validate\`: operator-registry's format check (metadata/annotations.yaml) and operator-framework/api's default
validators (the CSV, the CRDs, owned CRDs, alm-examples, service accounts, size); with
--select-optional=suite=operatorframework (or name=operatorhub) also the catalogue metadata (provider,
maintainers, links, icon, capabilities, categories). Exits 1 when it finds an error; warnings alone exit 0.
Validating a bundle image (not a directory) is not supported.
`;

const SELECTORS = new Set(['suite=operatorframework', 'name=operatorhub']);

/** What the command is handed (a part of tools.ts's ToolIo, not imported: tools.ts imports this module). */
interface BundleValidateIo {
  readonly cwd: string;
  readonly stdout: { write(s: string): unknown };
}

/** The flags (with the values of `--flag VALUE`) apart from the positional arguments. */
function splitArgs(argv: readonly string[]): { flagArgs: string[]; positional: string[] } {
  const flagArgs: string[] = [];
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('-')) positional.push(arg);
    else {
      flagArgs.push(arg);
      if (/^(--select-optional|--output|-o)$/.test(arg) && argv[i + 1] !== undefined) flagArgs.push(argv[++i] ?? '');
    }
  }
  return { flagArgs, positional };
}

export async function runBundleValidate(
  argv: readonly string[],
  io: BundleValidateIo,
  signal: AbortSignal,
): Promise<number> {
  const { flagArgs, positional } = splitArgs(argv);
  const flags = parseToolFlags(
    'bundle validate',
    flagArgs,
    { 'select-optional': 'string', output: 'string' },
    { o: 'output' },
  );
  if (positional.length !== 1) {
    throw new ConfigError(
      'bundle validate: give exactly one bundle directory (e.g. helm-operator bundle validate bundle)',
    );
  }
  const select = flags.get('select-optional');
  if (select !== undefined && !SELECTORS.has(String(select))) {
    throw new ConfigError(
      `bundle validate: --select-optional ${JSON.stringify(select)} matches no validator; use suite=operatorframework or name=operatorhub`,
    );
  }
  const output = flags.get('output') ?? 'text';
  if (output !== 'text' && output !== 'json') throw new ConfigError('bundle validate: --output takes text or json');
  const { checkBundle } = await import('../scaffold/bundle/validate.js');
  const dir = resolve(io.cwd, positional[0] ?? '');
  const found = await checkBundle(dir, { signal, ...(select === undefined ? {} : { suite: 'operatorframework' }) });
  if (output === 'json') {
    io.stdout.write(`${JSON.stringify({ passed: found.errors.length === 0, ...found }, null, 2)}\n`);
  } else {
    for (const w of found.warnings) io.stdout.write(`warning: ${w}\n`);
    for (const e of found.errors) io.stdout.write(`error: ${e}\n`);
    if (found.errors.length === 0) io.stdout.write('All validation tests have completed successfully\n');
  }
  return found.errors.length === 0 ? 0 : 1;
}
