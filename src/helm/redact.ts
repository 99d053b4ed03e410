// Redaction of secrets from helm's words (stderr, errors, argv shown in logs): the values read from Secrets, values
// under keys that name secret material (passwords, tokens, API keys…) and PEM private keys; whole values only, never
// a piece of a longer word or name, so "context canceled" survives a value "text" and an object "web-podinfo"
// survives a value "podinfo"; never the names of the chart, release, namespace, CR or rendered objects; also the
// values file path and repository passwords on argv; and a failed process made a cause safe to log. Called by the helm
// CLI adapter (cli.ts). Pure; never logs and never returns a value it hides.
import { ProcessFailure } from './process.js';

/** What the values file path is replaced with wherever argv is shown (errors, logs, metrics hooks). */
export const VALUES_PLACEHOLDER = '<values>';

/** What redacted values are replaced with in helm's output. */
export const REDACTED = '<redacted>';

/** Lines of a multi-line secret at least this long are also hidden one by one (a PEM body, a values file). */
export const MIN_REDACTED_LENGTH = 8;

/** Words that make a key name secret material (a key's words: split at camelCase, `_`, `-` and `.`). */
const SECRET_WORDS = new Set(['password', 'passwd', 'passphrase', 'token', 'tokens', 'secret', 'secrets']);
/** Words that make a key name secret material as a credential set. */
const CREDENTIAL_WORDS = new Set(['credential', 'credentials', 'creds']);
/** `<word>Key` / `<word>_key`: the keys that are keys (API, access, private…), not a `key` of a map or a toleration. */
const KEY_KINDS = new Set([
  'api',
  'access',
  'secret',
  'private',
  'signing',
  'encryption',
  'master',
  'client',
  'auth',
  'license',
  'ssh',
  'shared',
  'session',
  'account',
  'storage',
  'webhook',
]);
/** Last words that make a key name a reference to a secret (its name, path or file), not the secret itself. */
const REFERENCE_WORDS = new Set(['name', 'names', 'ref', 'path', 'file', 'mount', 'env', 'field', 'type']);

/** The words of a key name: `existingSecretName` → existing, secret, name; `api_key` → api, key. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/**
 * Whether a key names secret material precisely: a password, passphrase, token, secret or credential (but not the
 * name, path or file of one: `secretName`, `existingSecret`, `tokenPath`), or an API/access/private key (`apiKey`,
 * `access_key`, `privateKey`) — never `key` alone, `cert`, or `key` inside another word (`monkey`, `keys`).
 */
export function secretKey(key: string): boolean {
  const words = keyWords(key);
  const last = words.at(-1) ?? '';
  if (words[0] === 'existing' || REFERENCE_WORDS.has(last)) return false;
  if (words.some((w) => SECRET_WORDS.has(w) || CREDENTIAL_WORDS.has(w))) return true;
  return last === 'key' && words.length >= 2 && KEY_KINDS.has(words.at(-2) ?? '');
}

/** A PEM private key, wherever it stands: `-----BEGIN … PRIVATE KEY-----`. */
const PEM_PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/**
 * The strings to scrub from helm's output for these values: every non-empty string or number under a key that
 * names secret material (at any depth below it, see secretKey) and every PEM private key, each also in its
 * JSON-escaped form, longest first, plus `always` (the values read from Secrets). Ordinary values are not hidden,
 * however long: they are names, hosts and images a user needs to read. A value that is one of `names` (the chart's,
 * the release's, the namespace's, the CR's, a rendered object's) is never hidden.
 */
export function secretsOf(values: unknown, always: readonly string[] = [], names: readonly string[] = []): string[] {
  const found = new Set<string>();
  for (const s of always) addSecret(found, s);
  const visit = (v: unknown, secret: boolean): void => {
    if (typeof v === 'string') {
      if ((secret && v.trim() !== '') || PEM_PRIVATE_KEY.test(v)) addSecret(found, v);
    } else if (typeof v === 'number' || typeof v === 'bigint') {
      if (secret) addSecret(found, String(v));
    } else if (Array.isArray(v)) {
      for (const item of v) visit(item, secret);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) visit(item, secret || secretKey(k));
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

/**
 * The process failure as a `cause` that cannot leak values into logs: stdout (the rendered manifest) is dropped,
 * stderr is the scrubbed tail, and argv shows `<values>` instead of the file path.
 */
export function scrubbedCause(
  err: ProcessFailure,
  scrubText: (text: string) => string,
  stderr: string,
): ProcessFailure {
  const short = scrubText(err.message);
  const message = stderr === '' ? short : `${short}\n\n${stderr}`;
  return new ProcessFailure(
    message,
    { ...err, stdout: '', stderr },
    err.cause === undefined ? {} : { cause: err.cause },
  );
}
