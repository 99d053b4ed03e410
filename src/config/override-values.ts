// Reads one watches.yaml entry's `overrideValues`: each value coerced to the string Go would see, `$VAR`-expanded and
// checked with Helm's `--set` parser, so a bad override fails at startup rather than at every reconcile. Called by
// the watches loader. Pure: reports problems through its callbacks; never reads process.env (it is passed in).
import { ConfigError } from '../core/errors.js';
import { describe, isMapping, isSet, q, type Report } from './fields.js';
import { type Env, expandOverrideValue } from './overrides.js';
import { parseOverrides } from './strvals.js';
import { isMap, isScalar, type Pair } from './yaml.js';
import { yamlScalarToString } from './yaml-scalar.js';

/** The entry's overrides after expansion ({} when absent or invalid); `entryNode` is the entry's YAML syntax node. */
export function readOverrides(
  raw: unknown,
  entryNode: unknown,
  env: Env,
  fail: Report,
  warn: Report,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (isSet(raw) && !isMapping(raw))
    fail(`overrideValues: must be a mapping such as {image.tag: "1.2"}, not ${describe(raw)}`);
  if (!isMapping(raw)) return out;
  let ok = true;
  for (const [key, value] of Object.entries(raw)) {
    const text = yamlScalarToString(value);
    const source = scalarSource(entryNode, key);
    if (text !== undefined && typeof value !== 'string' && source !== undefined && source !== text) {
      warn(
        `overrideValues ${q(key)}: the unquoted YAML value ${source} becomes ${q(text)} (as in operator-sdk); quote it to keep the text`,
      );
    }
    try {
      if (text === undefined)
        throw new ConfigError(
          `overrideValues ${q(key)}: must be a single value, not ${describe(value)}; use dotted keys such as "image.tag" for nested values`,
        );
      Object.defineProperty(out, key, { value: expandOverrideValue(key, text, env), enumerable: true, writable: true });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      ok = false;
      fail(err.message);
    }
  }
  try {
    if (ok) parseOverrides(out); // fail at startup rather than at every reconcile, as operator-sdk would
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    fail(err.message);
  }
  return out;
}

/** The YAML text of `overrideValues[key]` in the entry's syntax tree, when it is written there as a scalar. */
function scalarSource(entryNode: unknown, key: string): string | undefined {
  const keyIs = (name: string) => (p: Pair) => isScalar(p.key) && String(p.key.value).toLowerCase() === name;
  const values = isMap(entryNode) ? entryNode.items.find(keyIs('overridevalues'))?.value : undefined;
  const pair = isMap(values) ? values.items.find((p) => isScalar(p.key) && String(p.key.value) === key) : undefined;
  return isScalar(pair?.value) ? pair.value.source : undefined;
}
