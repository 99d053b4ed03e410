// watches.yaml `overrideValues`: `$VAR` expansion and the merge that lays overrides over a custom resource's spec
// (the YAML scalar coercion is yaml-scalar.ts, the Helm `--set`-style parser strvals.ts). Called by the watches
// loader and the reconciler. Pure: never reads process.env (the environment is passed in) and never mutates its inputs.
import { ConfigError } from '../core/errors.js';
import { isPlainObject, own, put } from './values-tree.js';

/** Environment variables, e.g. `process.env` passed in by the composition root. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Go's `os.ExpandEnv`: replaces `$VAR` and `${VAR}` (also `$1`, `$@`, ... like Go) with their values; an unset
 * variable becomes "". A `$` at the end or before a character that cannot start a name stays; `${}` and an
 * unclosed `${` are dropped, as in Go.
 */
export function expandEnv(value: string, env: Env): string {
  let out = '';
  let pending = 0;
  for (let j = 0; j < value.length; j++) {
    if (value[j] !== '$' || j + 1 >= value.length) continue;
    out += value.slice(pending, j);
    const [name, width] = shellName(value.slice(j + 1));
    if (name !== '') out += Object.hasOwn(env, name) ? (env[name] ?? '') : '';
    else if (width === 0) out += '$';
    j += width;
    pending = j + 1;
  }
  return out + value.slice(pending);
}

const SHELL_SPECIAL = new Set('*#$@!?-0123456789');

function shellName(s: string): [name: string, width: number] {
  const first = s[0] ?? '';
  if (first === '{') {
    const second = s[1] ?? '';
    if (s.length > 2 && SHELL_SPECIAL.has(second) && s[2] === '}') return [second, 3];
    const close = s.indexOf('}', 1);
    if (close === 1) return ['', 2];
    return close === -1 ? ['', 1] : [s.slice(1, close), close + 1];
  }
  if (SHELL_SPECIAL.has(first)) return [first, 1];
  const match = /^[A-Za-z0-9_]*/.exec(s);
  const name = match ? match[0] : '';
  return [name, name.length];
}

/**
 * What operator-sdk does to an override value at startup: env expansion, then (in Go) a text/template run.
 * Templates are not supported yet, so a value that still contains `{{` after expansion is a ConfigError naming the key.
 */
export function expandOverrideValue(key: string, value: string, env: Env): string {
  const expanded = expandEnv(value, env);
  if (expanded.includes('{{')) {
    throw new ConfigError(
      `overrideValues ${JSON.stringify(key)}: Go templates ("{{ ... }}") in overrideValues are not supported yet; ` +
        'replace the template with a literal value or a $VARIABLE reference',
    );
  }
  return expanded;
}

function clone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clone);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) put(out, k, clone(v));
  return out;
}

/**
 * operator-sdk's `mergeMaps`: a new object with `override` laid over `base`. Where both sides hold a map the maps
 * merge recursively; anything else in `override` (a string, a list, null) replaces what `base` had. The result
 * shares no objects or arrays with the inputs.
 */
export function deepMerge(
  base: Readonly<Record<string, unknown>>,
  override: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(base)) put(out, k, clone(v));
  for (const [k, v] of Object.entries(override)) {
    const existing = own(out, k);
    put(out, k, isPlainObject(v) && isPlainObject(existing) ? deepMerge(existing, v) : clone(v));
  }
  return out;
}
