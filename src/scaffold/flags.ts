// The flag loop shared by `init` and `create api`: `--name=value`, `--name value` and a `--force[=bool]` switch,
// with operator-sdk-style messages. Pure; called by init/flags.ts and api/flags.ts. Never reads process.*.
import { ConfigError } from '../core/errors.js';

const TRUE = new Set(['true', '1', 't', 'T', 'TRUE', 'True']);
const FALSE = new Set(['false', '0', 'f', 'F', 'FALSE', 'False']);

export interface ScaffoldFlags {
  readonly values: Map<string, string>;
  readonly force: boolean;
  /** The `switches` given, by name (`--name` is true, `--name=false` false). */
  readonly switches: Map<string, boolean>;
  /** Every value of each repeatable flag, in order. */
  readonly lists: Map<string, string[]>;
}

/**
 * `command` names the command in messages ("init", "create api"); `accepts` is the human list of its flags.
 * A value that looks like a flag (`--domain --force`) is refused rather than taken as the value. `switches` are
 * more boolean flags like `--force`; `repeatable` string flags keep every value (`lists`), the others the last.
 */
export function parseScaffoldFlags(
  command: string,
  argv: readonly string[],
  stringFlags: readonly string[],
  accepts: string,
  switchFlags: readonly string[] = [],
  repeatable: readonly string[] = [],
): ScaffoldFlags {
  const values = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const switches = new Map<string, boolean>();
  let force = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) {
      throw new ConfigError(
        `unexpected argument ${JSON.stringify(arg)}: ${command} takes flags only (helm-operator ${command} --help)`,
      );
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (name === 'force' || switchFlags.includes(name)) {
      const raw = eq < 0 ? 'true' : arg.slice(eq + 1);
      if (!TRUE.has(raw) && !FALSE.has(raw))
        throw new ConfigError(`--${name}: ${JSON.stringify(raw)} is not a boolean`);
      if (name === 'force') force = TRUE.has(raw);
      else switches.set(name, TRUE.has(raw));
      continue;
    }
    if (!stringFlags.includes(name)) throw new ConfigError(`unknown flag: --${name}; ${command} accepts ${accepts}`);
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) {
      throw new ConfigError(`flag needs an argument: --${name}`);
    }
    values.set(name, value);
    if (repeatable.includes(name)) lists.set(name, [...(lists.get(name) ?? []), value]);
  }
  return { values, force, switches, lists };
}
