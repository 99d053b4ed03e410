// watches.yaml `overrideValues`: YAML scalar → Go string coercion, `$VAR` expansion, Helm `--set`-style parsing into a
// values tree, and the merge that lays overrides over a custom resource's spec. Called by the watches loader and the
// reconciler. Pure: never reads process.env (the environment is passed in) and never mutates its inputs.
import { ConfigError } from '../core/errors.js';

/** Environment variables, e.g. `process.env` passed in by the composition root. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A parsed override: strings, lists (holes are null, as in Helm) and nested maps. */
export type OverrideValue = string | null | OverrideValue[] | OverrideTree;
export interface OverrideTree {
  [key: string]: OverrideValue;
}

/**
 * Turns a YAML scalar into the string Go would get (sigs.k8s.io/yaml target-aware conversion into a string field):
 * strings as is, booleans as "true"/"false", null as "", integers (as bigint) in decimal, and floats (as number)
 * in Go's `FormatFloat(v, 'g', -1, 32)` form, so `1.10` becomes "1.1" and `1e6` becomes "1e+06".
 * Returns undefined for anything that is not a scalar (maps, lists, dates, ...).
 */
export function yamlScalarToString(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'boolean':
      return String(value);
    case 'undefined':
      return '';
    case 'bigint': // go-yaml keeps int64 and uint64 exact and reads anything larger as a float
      return value >= -(1n << 63n) && value < 1n << 64n ? String(value) : goFloat32String(Number(value));
    case 'number':
      return goFloat32String(value);
    default:
      return value === null ? '' : undefined;
  }
}

function goFloat32String(n: number): string {
  const f = Math.fround(n);
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  let sci = f.toExponential(8);
  for (let p = 0; p < 8; p++) {
    const candidate = f.toExponential(p);
    if (Math.fround(Number(candidate)) === f) {
      sci = candidate;
      break;
    }
  }
  const [mantissa = '', expText = '0'] = sci.split('e');
  const exp = Number(expText);
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = f < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const rest = digits.length > 1 ? `.${digits.slice(1)}` : '';
    return `${sign}${digits[0]}${rest}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const point = exp + 1;
  const whole = point > 0 ? digits.slice(0, point).padEnd(point, '0') : '0';
  let fraction = '';
  for (let i = point; i < digits.length; i++) fraction += i < 0 ? '0' : digits[i];
  return `${sign}${whole}${fraction && `.${fraction}`}`;
}

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

class StrvalsError extends Error {}

const MAX_INDEX = 65536;
const MAX_NESTING = 30;
const KEY_STOP = new Set('=[,.');
const ITEM_STOP = new Set('[.=');
const LIST_STOP = new Set(',}');
const VALUE_STOP = new Set(',');
const INDEX_STOP = new Set(']');

/**
 * Parses overrides the way operator-sdk does: each entry becomes the Helm `--set-string` expression `key=value`
 * (Helm's `strvals.ParseIntoString`) and all of them are parsed into one tree, in the map's order. So:
 * - every value stays a string; `a.b` nests maps; `list[0]` and `list[0].name` index lists (holes become null);
 * - a backslash escapes the next character, so keys can contain `\.` and values `\,`;
 * - an unescaped `,` in a value starts another `key=value` pair (`"a,b=c"` sets the key to "a" and `b` to "c"),
 *   and a `,` not followed by `key=value` is an error, as in Helm;
 * - a value in braces is a list of strings (`"{a,b}"` gives ["a", "b"]);
 * - a key that already holds a value of another shape (`a` then `a.b`) is an error.
 * Throws a ConfigError naming the key.
 */
export function parseOverrides(overrides: Readonly<Record<string, string>>): OverrideTree {
  const tree: OverrideTree = {};
  for (const [key, value] of Object.entries(overrides)) {
    const runes = new Runes(`${key}=${value}`);
    try {
      let done = false;
      while (!done) done = parseKey(runes, tree, 0);
    } catch (err) {
      if (!(err instanceof StrvalsError)) throw err;
      throw new ConfigError(
        `overrideValues ${JSON.stringify(key)}: Helm's --set parser rejects "key=value": ${err.message}; ` +
          'escape "," in values (and ".", "[", "=" in keys) with a backslash, e.g. "a\\,b"',
        { cause: err },
      );
    }
  }
  return tree;
}

class Runes {
  readonly #runes: string[];
  #pos = 0;
  constructor(text: string) {
    this.#runes = Array.from(text);
  }
  read(): string | undefined {
    return this.#pos < this.#runes.length ? this.#runes[this.#pos++] : undefined;
  }
  unread(): void {
    this.#pos--;
  }
  /** Reads up to (and consumes) the first unescaped stop rune; `last` is undefined at the end of input. */
  until(stop: ReadonlySet<string>): [text: string, last: string | undefined] {
    let text = '';
    for (let r = this.read(); r !== undefined; r = this.read()) {
      if (stop.has(r)) return [text, r];
      if (r === '\\') {
        const next = this.read();
        if (next === undefined) return [text, undefined];
        text += next;
      } else {
        text += r;
      }
    }
    return [text, undefined];
  }
}

/** Parses one `key…=value` into `data`; returns true once the input is used up. */
function parseKey(runes: Runes, data: OverrideTree, nesting: number): boolean {
  const [key, last] = runes.until(KEY_STOP);
  switch (last) {
    case undefined:
      if (key === '') return true;
      throw new StrvalsError(`key ${JSON.stringify(key)} has no value`);
    case ',':
      throw new StrvalsError(`key ${JSON.stringify(key)} has no value (cannot end with ,)`);
    case '=':
      set(data, key, parseValue(runes));
      return false;
    case '[': {
      const index = parseIndex(runes);
      const existing = own(data, key);
      if (existing !== undefined && !Array.isArray(existing)) throw conflict(key, existing, 'a list');
      const [list, done] = parseListItem(runes, existing ?? [], index, nesting);
      set(data, key, list);
      return done;
    }
    default: {
      if (nesting + 1 > MAX_NESTING) throw new StrvalsError(`keys may nest at most ${MAX_NESTING} levels deep`);
      const existing = own(data, key);
      if (existing !== undefined && !isTree(existing)) throw conflict(key, existing, 'a map');
      const inner: OverrideTree = existing ?? {};
      const done = parseKey(runes, inner, nesting + 1);
      const empty = Object.keys(inner).length === 0;
      if (!done && empty) throw new StrvalsError(`key map ${JSON.stringify(key)} has no value`);
      if (!empty) set(data, key, inner);
      return done;
    }
  }
}

function parseListItem(
  runes: Runes,
  list: OverrideValue[],
  index: number,
  nesting: number,
): [OverrideValue[], boolean] {
  const [rest, last] = runes.until(ITEM_STOP);
  if (rest !== '') throw new StrvalsError(`unexpected data at end of array index: ${JSON.stringify(rest)}`);
  switch (last) {
    case undefined:
      return [list, true];
    case '=':
      return [withIndex(list, index, parseValue(runes)), false];
    case '[': {
      const next = parseIndex(runes);
      const current = list[index] ?? null;
      if (current !== null && !Array.isArray(current)) throw conflict(`[${index}]`, current, 'a list');
      const [nested, done] = parseListItem(runes, current ?? [], next, nesting);
      return done ? [list, true] : [withIndex(list, index, nested), false];
    }
    default: {
      const current = list[index];
      const inner: OverrideTree = isTree(current) ? current : {};
      const done = parseKey(runes, inner, nesting);
      return done ? [list, true] : [withIndex(list, index, inner), false];
    }
  }
}

/** A plain value, or `{a,b}` as a list of strings; "" when the input ends right after `=`. */
function parseValue(runes: Runes): string | string[] {
  const first = runes.read();
  if (first === undefined) return '';
  if (first !== '{') {
    runes.unread();
    return runes.until(VALUE_STOP)[0];
  }
  const list: string[] = [];
  for (;;) {
    const [item, last] = runes.until(LIST_STOP);
    if (last === undefined) throw new StrvalsError("list must terminate with '}'");
    list.push(item);
    if (last === '}') {
      const next = runes.read();
      if (next !== undefined && next !== ',') runes.unread();
      return list;
    }
  }
}

function parseIndex(runes: Runes): number {
  const [text, last] = runes.until(INDEX_STOP);
  if (last === undefined) throw new StrvalsError(`error parsing index: missing "]" after ${JSON.stringify(text)}`);
  if (!/^[+-]?\d+$/.test(text)) throw new StrvalsError(`error parsing index: ${JSON.stringify(text)} is not a number`);
  const index = Number(text);
  if (index < 0) throw new StrvalsError(`negative ${index} index not allowed`);
  if (index > MAX_INDEX)
    throw new StrvalsError(`index of ${index} is greater than maximum supported index of ${MAX_INDEX}`);
  return index;
}

function withIndex(list: readonly OverrideValue[], index: number, value: OverrideValue): OverrideValue[] {
  const out = list.slice();
  while (out.length <= index) out.push(null);
  out[index] = value;
  return out;
}

function conflict(key: string, existing: OverrideValue, wanted: string): StrvalsError {
  const shape =
    existing === null ? 'null' : Array.isArray(existing) ? 'a list' : isTree(existing) ? 'a map' : 'a string';
  return new StrvalsError(`${JSON.stringify(key)} already holds ${shape}, so it cannot also be ${wanted}`);
}

/** Helm's `set`: an empty key is silently skipped. */
function set(data: OverrideTree, key: string, value: OverrideValue): void {
  if (key !== '') put(data, key, value);
}

function own<T>(obj: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets a property without ever touching the prototype (a key may be "__proto__"). */
function put(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function isTree(value: OverrideValue | undefined): value is OverrideTree {
  return isPlainObject(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
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
