// A chart's `.helmignore` as helm's ignore package reads and applies it (helm 3 and 4 alike): one rule per line,
// `#` comments, `!` negation, a trailing `/` for directories only, a leading `/` for the chart's root, and Go's
// filepath.Match patterns (`**` refused); plus helm's default rule `templates/.?*`. Used by chart-files.ts' walk.
// Pure; never touches the filesystem.
import { ChartLoadError } from './chart-load-error.js';
import { BadPatternError, goPathMatch } from './go-path-match.js';

interface Rule {
  readonly negate: boolean;
  readonly mustDir: boolean;
  /** `root`: the whole path, from the chart's root; `path`: the whole path; `base`: the last path segment only. */
  readonly scope: 'root' | 'path' | 'base';
  readonly pattern: string;
}

/** The rules of one chart, in file order, then helm's defaults. */
export interface IgnoreRules {
  readonly rules: readonly Rule[];
}

/** helm's rules.AddDefaults(): every dotfile in templates/. */
const DEFAULT_RULES = ['templates/.?*'];

/**
 * The rules of a `.helmignore` (its text; undefined when the chart has none) followed by helm's defaults. Throws
 * ChartLoadError where helm's ignore.Parse fails.
 */
export function helmignoreRules(text: string | undefined): IgnoreRules {
  const lines = text === undefined ? [] : text.replace(/^\uFEFF/, '').split('\n');
  const rules: Rule[] = [];
  for (const line of [...lines, ...DEFAULT_RULES]) {
    const rule = parseRule(line);
    if (rule) rules.push(rule);
  }
  return { rules };
}

/**
 * Whether helm leaves out the entry at `path` (relative to the chart, `/`-separated; a directory's whole content goes
 * with it). Rules are tried in order and the first that decides wins; a `!` rule decides for every entry it does
 * not match (helm ignores those) and lets the ones it matches go on to the next rule, as helm's Rules.Ignore does.
 */
export function isIgnored({ rules }: IgnoreRules, path: string, isDir: boolean): boolean {
  if (path === '' || path === '.' || path === './') return false;
  for (const rule of rules) {
    if (rule.negate) {
      if (rule.mustDir && !isDir) return true;
      if (!matches(rule, path)) return true;
      continue;
    }
    if (rule.mustDir && !isDir) continue;
    if (matches(rule, path)) return true;
  }
  return false;
}

function parseRule(line: string): Rule | undefined {
  let rule = line.trim();
  if (rule === '' || rule.startsWith('#')) return undefined;
  if (rule.includes('**')) throw new ChartLoadError('double-star (**) syntax is not supported');
  try {
    goPathMatch(rule, 'abc'); // helm rejects what Go's Match finds malformed
  } catch (err) {
    if (err instanceof BadPatternError) throw new ChartLoadError(`${err.message} in .helmignore`);
    throw err;
  }
  const negate = rule.startsWith('!');
  if (negate) rule = rule.slice(1);
  const mustDir = rule.endsWith('/');
  if (mustDir) rule = rule.slice(0, -1);
  if (rule.startsWith('/')) return { negate, mustDir, scope: 'root', pattern: rule.slice(1) };
  return { negate, mustDir, scope: rule.includes('/') ? 'path' : 'base', pattern: rule };
}

/** One rule against one path; a pattern Go cannot compile matches nothing (helm logs it and goes on). */
function matches(rule: Rule, path: string): boolean {
  const name = rule.scope === 'base' ? path.slice(path.lastIndexOf('/') + 1) : path;
  try {
    return goPathMatch(rule.pattern, name);
  } catch (err) {
    if (err instanceof BadPatternError) return false;
    throw err;
  }
}
