// Helm's `strvals` parser (the `--set-string` syntax) for watches.yaml `overrideValues`: turns `key=value` pairs
// into a values tree exactly as operator-sdk does. Called by the watches loader (config/override-values.ts),
// config/values-from.ts and reconciler/watch-kit.ts. Pure: never mutates its input; every problem is a ConfigError naming
// the key.
import { ConfigError } from '../core/errors.js';
import { isTree, type OverrideTree, type OverrideValue, own, put } from './values-tree.js';

/** A problem Helm's parser reports; the callers turn it into their own error naming the key or reference. */
export class StrvalsError extends Error {}

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
    try {
      parseStringInto(`${key}=${value}`, tree);
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

/**
 * Helm's `strvals.ParseIntoString` of one expression (`a.b[0]=value`, more pairs after unescaped commas) into
 * `tree`, which it changes in place; every value is a string. Throws a StrvalsError.
 */
export function parseStringInto(expression: string, tree: OverrideTree): void {
  const runes = new Runes(expression);
  let done = false;
  while (!done) done = parseKey(runes, tree, 0);
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
    existing === null
      ? 'null'
      : Array.isArray(existing)
        ? 'a list'
        : isTree(existing)
          ? 'a map'
          : `a ${typeof existing === 'string' ? 'string' : 'value'}`;
  return new StrvalsError(`${JSON.stringify(key)} already holds ${shape}, so it cannot also be ${wanted}`);
}

/** Helm's `set`: an empty key is silently skipped. */
function set(data: OverrideTree, key: string, value: OverrideValue): void {
  if (key !== '') put(data, key, value);
}
