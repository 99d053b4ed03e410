// Where the generator got a rule of the manager role, kept in role.yaml as a comment before the rule: a rule only a
// `--values` file needed ("generated for --values=…"), or the default rules written for a chart that did not render
// ("default rules for charts/…"). Lets generate rbac tell its own earlier rules from hand-written ones. Pure.
import { rulesNotDerived } from './kept-rules.js';
import type { PolicyRule, RuleOrigin, RuleSection } from './rules.js';

const VALUES = /^\s*generated for (--values=\S+):/;
const FALLBACK = /^\s*default rules for (\S+), which did not render:/;

/** The comment written before each rule of a section (one line, so that it reads back). */
export function originComment(origin: RuleOrigin): string {
  return 'values' in origin
    ? ` generated for ${origin.values}: only that values file needs it; generate rbac keeps deriving it when given ${origin.values} again`
    : ` default rules for ${origin.fallback}, which did not render: review them; generate rbac replaces them with exact rules once the chart renders (a sample or --values that sets what it requires)`;
}

/** The origin a rule's comment names, if it is one of originComment's. */
export function parseOrigin(comment: string | null | undefined): RuleOrigin | undefined {
  const first = (comment ?? '').split('\n')[0] ?? '';
  const values = VALUES.exec(first)?.[1];
  if (values !== undefined) return { values };
  const chart = FALLBACK.exec(first)?.[1];
  return chart === undefined ? undefined : { fallback: chart };
}

export function originKey(origin: RuleOrigin | undefined): string {
  return origin === undefined ? '' : 'values' in origin ? `values ${origin.values}` : `fallback ${origin.fallback}`;
}

/**
 * One section per origin (the unmarked one first, then in order of appearance), each merged, with every grant that an
 * earlier section already gives left out; empty sections dropped.
 */
export function normalizeSections(sections: readonly RuleSection[]): RuleSection[] {
  const byKey = new Map<string, { origin: RuleOrigin | undefined; rules: PolicyRule[] }>([
    ['', { origin: undefined, rules: [] }],
  ]);
  for (const s of sections) {
    const key = originKey(s.origin);
    const entry = byKey.get(key) ?? { origin: s.origin, rules: [] };
    byKey.set(key, entry);
    entry.rules.push(...s.rules);
  }
  const out: RuleSection[] = [];
  const given: PolicyRule[] = [];
  for (const { origin, rules } of byKey.values()) {
    const merged = rulesNotDerived(rules, given);
    given.push(...merged);
    if (merged.length > 0) out.push(origin === undefined ? { rules: merged } : { origin, rules: merged });
  }
  return out;
}

/** Every rule of the sections, in order. */
export function allRules(sections: readonly RuleSection[]): PolicyRule[] {
  return sections.flatMap((s) => s.rules);
}
