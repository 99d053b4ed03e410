// Go durations ("300ms", "1.5h", "2h45m") as milliseconds, with Go's `time.ParseDuration` grammar and limits.
// Used by the watches loader (`reconcilePeriod`) and by anything that reads a Go-style duration flag or annotation.
// Pure: never reads the clock or the environment.
import { ConfigError } from './errors.js';

/** Nanoseconds per unit, as in Go's `time` package (both micro signs are accepted, like Go). */
const UNIT_NS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n],
  ['\u03bcs', 1_000n],
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

/** Go's time.Duration is an int64 of nanoseconds: |d| may not exceed 2^63 (2^63 itself only when negative). */
const MAX_NS = 1n << 63n;

const EXAMPLES = 'use a Go duration such as "30s", "1m30s", "1.5h" or "300ms" (units: ns, us, ms, s, m, h)';

function invalid(text: string, why: string): ConfigError {
  return new ConfigError(`invalid duration ${JSON.stringify(text)}: ${why}; ${EXAMPLES}`);
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * Parses a Go duration string into milliseconds (fractional below 1 ms, e.g. "1us" is 0.001).
 * Accepts exactly what Go accepts: an optional sign, then one or more `<number><unit>` parts where the number may
 * have a fraction ("1.5h", ".5s"), or the bare "0". Negative values are returned as such; the caller decides
 * whether they make sense. Throws a ConfigError (code CONFIG_INVALID) that quotes the bad value.
 */
export function parseDuration(text: string): number {
  let s = text;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw invalid(text, text === '' ? 'it is empty' : 'a sign alone is not a duration');

  let total = 0n;
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (!(c === '.' || isDigit(c))) throw invalid(text, `expected a number at ${JSON.stringify(s.slice(i))}`);
    const intStart = i;
    while (isDigit(s[i])) i++;
    const intDigits = s.slice(intStart, i);
    let fracDigits = '';
    if (s[i] === '.') {
      const fracStart = ++i;
      while (isDigit(s[i])) i++;
      fracDigits = s.slice(fracStart, i);
    }
    if (intDigits === '' && fracDigits === '') throw invalid(text, 'a "." needs digits next to it');
    const unitStart = i;
    while (i < s.length && !(s[i] === '.' || isDigit(s[i]))) i++;
    const unit = s.slice(unitStart, i);
    if (unit === '')
      throw invalid(text, `missing unit after ${JSON.stringify(intDigits + (fracDigits && `.${fracDigits}`))}`);
    const unitNs = UNIT_NS.get(unit);
    if (unitNs === undefined) throw invalid(text, `unknown unit ${JSON.stringify(unit)}`);

    let part = BigInt(intDigits || '0') * unitNs;
    if (fracDigits !== '') {
      // Like Go: the fraction is applied in floating point and truncated to whole nanoseconds; Go stops reading
      // fraction digits once they would overflow an int64, so digits past the 18th are ignored here too.
      const frac = fracDigits.slice(0, 18);
      part += BigInt(Math.trunc(Number(frac) * (Number(unitNs) / 10 ** frac.length)));
    }
    total += part;
    if (total > MAX_NS) throw invalid(text, 'it is too large (the maximum is about 2562047h)');
  }
  if (!negative && total === MAX_NS) throw invalid(text, 'it is too large (the maximum is about 2562047h)');
  const ms = Number(total) / 1e6;
  return negative ? -ms : ms;
}

/**
 * Formats milliseconds as a short duration that parseDuration reads back: "0s", "300ms", "1.5s", "1m30s", "2h45m".
 * Components that are zero are left out (unlike Go's "1m0s"); sub-millisecond values use "us"/"ns".
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1) {
    const ns = Math.round(rest * 1e6);
    return ns % 1000 === 0 ? `${sign}${ns / 1000}us` : `${sign}${ns}ns`;
  }
  if (rest < 1000) return `${sign}${trimNumber(rest)}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = rest / 1000;
  let out = sign;
  if (hours > 0) out += `${hours}h`;
  if (minutes > 0) out += `${minutes}m`;
  if (seconds > 0) out += `${trimNumber(seconds)}s`;
  return out;
}

/** Up to nanosecond precision, without trailing zeros or float noise ("1.5", not "1.5000000000000002"). */
function trimNumber(n: number): string {
  return String(Number(n.toFixed(6)));
}
