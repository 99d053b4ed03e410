// Redaction of the CR's values from helm's words (stderr, errors, argv shown in logs): whole values only, never a
// piece of a longer word or name, so "context canceled" survives a value "text" and an object "web-podinfo" survives
// a value "podinfo"; never the names of the chart, release, namespace or CR; also the values file path and repository
// passwords on argv. Called by the helm CLI adapter (cli.ts). Pure; never logs and never returns a value it hides.

/** What the values file path is replaced with wherever argv is shown (errors, logs, metrics hooks). */
export const VALUES_PLACEHOLDER = '<values>';

/** What redacted values are replaced with in helm's output. */
export const REDACTED = '<redacted>';

/** Values shorter than this are redacted only under a key that looks secret: short ones are ordinary words. */
export const MIN_REDACTED_LENGTH = 8;

/** Keys whose values are redacted whatever their length (matched anywhere in the key, ignoring case). */
const SECRET_KEY = /password|passwd|token|key|secret|cert/i;

/**
 * The strings to scrub from helm's output for these values: every string leaf at least MIN_REDACTED_LENGTH long,
 * and every non-empty string under a key that looks secret (at any depth below it), each also in its JSON-escaped
 * form, longest first, plus `always`. Numbers, booleans and keys are not secrets and are kept, and so is any value
 * that is one of `names` (the chart's, the release's, the namespace's, the CR's).
 */
export function secretsOf(values: unknown, always: readonly string[] = [], names: readonly string[] = []): string[] {
  const found = new Set<string>();
  for (const s of always) addSecret(found, s);
  const visit = (v: unknown, secretKey: boolean): void => {
    if (typeof v === 'string') {
      if (v.length >= MIN_REDACTED_LENGTH || (secretKey && v.trim() !== '')) addSecret(found, v);
    } else if (Array.isArray(v)) {
      for (const item of v) visit(item, secretKey);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) visit(item, secretKey || SECRET_KEY.test(k));
    }
  };
  visit(values, false);
  // A piece of a name ("podinfo" of "podinfo-sample") needs no exception: redact() replaces whole values only.
  return [...found].filter((s) => !names.includes(s)).sort((a, b) => b.length - a.length);
}

/**
 * Adds a non-blank secret in its raw and JSON-escaped forms and, for a multi-line one (a PEM key, a values file),
 * each of its lines of at least MIN_REDACTED_LENGTH characters, as a YAML or log rendering may show it line by line.
 */
function addSecret(found: Set<string>, s: string): void {
  if (s.trim() === '') return;
  found.add(s);
  found.add(JSON.stringify(s).slice(1, -1));
  if (!s.includes('\n')) return;
  for (const line of s.split(/\r?\n/)) if (line.trim().length >= MIN_REDACTED_LENGTH) found.add(line.trim());
}

const WORD = /[\p{L}\p{N}_]/u;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A pattern matching `s` only where it is not part of a longer word or name (a boundary is needed only on a word
 * side): not next to a letter, digit or `_`, nor joined to one by `-` (`web-podinfo`, `podinfo-sample`). A `.` is
 * a boundary: field paths (`spec.<value>`) and sentences end there.
 */
function wholeValue(s: string): RegExp {
  const before = WORD.test(s.slice(0, 1)) ? '(?<![\\p{L}\\p{N}_])(?<![\\p{L}\\p{N}_]-)' : '';
  const after = WORD.test(s.slice(-1)) ? '(?![\\p{L}\\p{N}_])(?!-[\\p{L}\\p{N}_])' : '';
  return new RegExp(`${before}${escapeRegExp(s)}${after}`, 'gu');
}

/** `text` with every whole occurrence of every secret replaced by REDACTED. `secrets` should be longest first. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s !== '' && out.includes(s)) out = out.replace(wholeValue(s), REDACTED);
  }
  return out;
}

/** `args` with every occurrence of the values file path replaced by VALUES_PLACEHOLDER. */
export function redactArgs(args: readonly string[], valuesFile: string | undefined): string[] {
  return args.map((a) => (valuesFile !== undefined && a === valuesFile ? VALUES_PLACEHOLDER : a));
}

/** The password of `scheme://user:password@host/…` URLs among `args`, so that errors and logs can hide it. */
export function urlSecrets(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    const match = /^(?:--[a-z-]+=)?[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:([^/@\s]+)@/i.exec(arg);
    if (match?.[1] !== undefined && match[1].length > 0) out.push(match[1]);
  }
  return out;
}
