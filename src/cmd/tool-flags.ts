// A small flag parser for the CLI's tool commands (undeploy, cleanup, init, create api, generate …): `--x=v`,
// `--x v`, bare booleans and `-f FILE`. Pure; throws ConfigError naming the command and the flag.
// Called by src/cmd/tools.ts; `run` keeps its pflag-compatible parser in flags.ts.
import { ConfigError } from '../core/errors.js';

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
