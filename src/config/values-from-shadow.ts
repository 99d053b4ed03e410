// Which values from values-from references the CR's spec shadows: inline values win, key by key, as in Flux and as
// deepMerge lays the spec over the references; a key the spec sets where a reference sets one too loses the
// reference's value. Only key paths, never values (a Secret's values must not show anywhere). Pure; called by
// reconciler/inputs/values-from.ts, which turns the result into the ValuesShadowed condition.
import { isPlainObject, own } from './values-tree.js';

/** One reference's values, and how messages name it (`Secret ns/name key "values.yaml"`). */
export interface ValuesLayer {
  readonly source: string;
  readonly values: Readonly<Record<string, unknown>>;
}

/** A reference whose values the spec shadows, and the key paths it loses (sorted). */
export interface Shadowed {
  readonly source: string;
  readonly keys: readonly string[];
}

/**
 * For each layer, in order, the key paths (`ui.message`; a dot inside a key escaped as `\.`, as in `--set`) that the
 * spec sets where the layer sets a value too: wherever deepMerge would not merge the two (both maps merge), the
 * spec's value replaces the layer's, whether or not the two are equal (reporting only differing ones would tell
 * anyone who can edit the spec whether a guess matches a Secret's value). Layers that lose nothing are left out.
 */
export function shadowedBySpec(layers: readonly ValuesLayer[], spec: Readonly<Record<string, unknown>>): Shadowed[] {
  const out: Shadowed[] = [];
  for (const { source, values } of layers) {
    const keys: string[] = [];
    collect(values, spec, [], keys);
    if (keys.length > 0) out.push({ source, keys: keys.sort() });
  }
  return out;
}

function collect(
  layer: Readonly<Record<string, unknown>>,
  spec: Readonly<Record<string, unknown>>,
  path: readonly string[],
  into: string[],
): void {
  for (const [key, value] of Object.entries(spec)) {
    if (!Object.hasOwn(layer, key)) continue;
    const below = own(layer, key);
    const at = [...path, key];
    if (isPlainObject(value) && isPlainObject(below)) collect(below, value, at, into);
    else into.push(at.map((k) => k.replaceAll('.', '\\.')).join('.'));
  }
}

/** Keys listed in a message at most; the rest are counted. */
const KEYS_SHOWN = 20;

/**
 * The ValuesShadowed condition's message: which keys, from which reference, and what to do; undefined when the spec
 * shadows nothing.
 */
export function shadowMessage(shadowed: readonly Shadowed[]): string | undefined {
  if (shadowed.length === 0) return undefined;
  let budget = KEYS_SHOWN;
  let hidden = 0;
  const parts: string[] = [];
  for (const { source, keys } of shadowed) {
    const shown = keys.slice(0, Math.max(0, budget));
    budget -= shown.length;
    hidden += keys.length - shown.length;
    if (shown.length > 0) parts.push(`${shown.join(', ')} (from ${source})`);
  }
  const more = hidden > 0 ? `, and ${hidden} more` : '';
  const total = shadowed.reduce((n, s) => n + s.keys.length, 0);
  const noun = total === 1 ? 'key' : 'keys';
  return (
    `the spec sets ${total} ${noun} that values-from also sets, and the spec's values are used (inline values ` +
    `win, as in Flux): ${parts.join('; ')}${more}. Remove ${total === 1 ? 'it' : 'them'} from the spec to use ` +
    'the referenced values'
  );
}
