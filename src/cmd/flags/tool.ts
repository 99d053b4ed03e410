// A small flag parser for the CLI's tool commands (undeploy, cleanup, init, create api, generate …): `--x=v`,
// `--x v`, bare booleans and `-f FILE`. Pure; throws ConfigError naming the command and the flag.
// Called by src/cmd/tools.ts; `run` keeps its pflag-compatible parser in flags.ts.
import { ConfigError } from '../../core/errors.js';

export type ToolFlagKind = 'string' | 'bool';

export function parseToolFlags(
  command: string,
  argv: readonly string[],
  spec: Readonly<Record<string, ToolFlagKind>>,
  aliases: Readonly<Record<string, string>> = {},
): Map<string, string | boolean> {
  const out = new Map<string, string | boolean>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const m = /^--?([A-Za-z][\w-]*)(?:=(.*))?$/s.exec(arg);
    if (!m?.[1]) throw new ConfigError(`${command}: unexpected argument ${JSON.stringify(arg)}`);
    const name = aliases[m[1]] ?? m[1];
    const kind = spec[name];
    if (!kind) {
      const known = Object.keys(spec).map((k) => `--${k}`);
      throw new ConfigError(`${command}: unknown flag ${JSON.stringify(arg)}; flags: ${known.join(', ')}`);
    }
    if (kind === 'bool') {
      if (m[2] !== undefined && !['true', 'false'].includes(m[2])) {
        throw new ConfigError(`${command}: --${name} takes true or false, not ${JSON.stringify(m[2])}`);
      }
      out.set(name, m[2] !== 'false');
      continue;
    }
    let value = m[2];
    if (value === undefined) {
      value = argv[++i];
      if (value === undefined) throw new ConfigError(`${command}: --${name} needs a value`);
    }
    out.set(name, value);
  }
  return out;
}

/** The usage line of `--helm-binary`, shared by every command that runs helm. */
export const HELM_BINARY_USAGE = '  --helm-binary=PATH   the helm to run (default $HELM_BINARY, else helm on PATH)\n';

/**
 * Takes `--helm-binary=PATH` / `--helm-binary PATH` out of argv (for commands whose own parser does not know it) and
 * resolves the binary as `run` does: the flag, else HELM_BINARY, else `helm` on PATH.
 */
export function takeHelmBinary(
  command: string,
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): { readonly binary: string; readonly rest: string[] } {
  const rest: string[] = [];
  let binary: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const m = /^--helm-binary(?:=(.*))?$/s.exec(arg);
    if (!m) {
      rest.push(arg);
      continue;
    }
    binary = m[1] ?? argv[++i];
    if (binary === undefined || binary === '') throw new ConfigError(`${command}: --helm-binary needs a path`);
  }
  return { binary: binary ?? (env.HELM_BINARY || 'helm'), rest };
}
