// Go's path/filepath.Match on Linux, rule for rule: `*` (no `/`), `?`, `[…]` classes with `^` and ranges, and `\`
// escapes; a malformed pattern is an error, as Go's ErrBadPattern. Used by helmignore.ts, whose rules helm matches
// with it. Pure; never touches the filesystem.

/** Go's filepath.ErrBadPattern: the pattern is malformed. */
export class BadPatternError extends Error {
  constructor(readonly pattern: string) {
    super(`syntax error in pattern ${JSON.stringify(pattern)}`);
  }
}

type Chars = readonly string[];

/** Whether `name` matches `pattern` as a whole; throws BadPatternError as Go returns ErrBadPattern. */
export function goPathMatch(pattern: string, name: string): boolean {
  const bad = () => new BadPatternError(pattern);
  let p: Chars = Array.from(pattern);
  let n: Chars = Array.from(name);
  outer: while (p.length > 0) {
    const { star, chunk, rest } = scanChunk(p);
    p = rest;
    if (star && chunk.length === 0) return !n.includes('/'); // a trailing * matches the rest, unless it has a /
    const here = matchChunk(chunk, n, bad);
    // The last chunk must use up the name; otherwise the star may still match.
    if (here !== undefined && (here.length === 0 || p.length > 0)) {
      n = here;
      continue;
    }
    if (star) {
      // The star takes i+1 characters, never a /.
      for (let i = 0; i < n.length && n[i] !== '/'; i++) {
        const after = matchChunk(chunk, n.slice(i + 1), bad);
        if (after === undefined) continue;
        if (p.length === 0 && after.length > 0) continue;
        n = after;
        continue outer;
      }
    }
    return false;
  }
  return n.length === 0;
}

/** The next chunk: a run of non-star pattern characters, and whether stars preceded it. */
function scanChunk(pattern: Chars): { star: boolean; chunk: Chars; rest: Chars } {
  let i = 0;
  while (pattern[i] === '*') i++;
  const star = i > 0;
  const p = pattern.slice(i);
  let inRange = false;
  for (let j = 0; j < p.length; j++) {
    const c = p[j];
    if (c === '\\') {
      if (j + 1 < p.length) j++;
    } else if (c === '[') inRange = true;
    else if (c === ']') inRange = false;
    else if (c === '*' && !inRange) return { star, chunk: p.slice(0, j), rest: p.slice(j) };
  }
  return { star, chunk: p, rest: [] };
}

/**
 * Matches `chunk` (literals, classes and `?`) against the start of `s`: the rest of `s`, or undefined when it does not
 * match. Like Go, it reads the whole chunk even after a mismatch, so a malformed chunk always throws.
 */
function matchChunk(chunk: Chars, s: Chars, bad: () => BadPatternError): Chars | undefined {
  let c = chunk;
  let rest = s;
  let failed = false;
  while (c.length > 0) {
    failed ||= rest.length === 0;
    const head = c[0];
    if (head === '[') {
      const r = failed ? undefined : rest[0]?.codePointAt(0);
      if (!failed) rest = rest.slice(1);
      c = c.slice(1);
      const negated = c[0] === '^';
      if (negated) c = c.slice(1);
      let match = false;
      for (let ranges = 0; ; ranges++) {
        if (c[0] === ']' && ranges > 0) {
          c = c.slice(1);
          break;
        }
        const lo = escaped(c, bad);
        let hi = lo.char;
        c = lo.rest;
        if (c[0] === '-') {
          const h = escaped(c.slice(1), bad);
          hi = h.char;
          c = h.rest;
        }
        if (r !== undefined && lo.char <= r && r <= hi) match = true;
      }
      failed ||= match === negated;
    } else if (head === '?') {
      if (!failed) {
        failed = rest[0] === '/';
        rest = rest.slice(1);
      }
      c = c.slice(1);
    } else {
      if (head === '\\') {
        c = c.slice(1);
        if (c.length === 0) throw bad();
      }
      if (!failed) {
        failed = c[0] !== rest[0];
        rest = rest.slice(1);
      }
      c = c.slice(1);
    }
  }
  return failed ? undefined : rest;
}

/** Go's getEsc: a class character (its code point), maybe escaped; the class must go on after it. */
function escaped(chunk: Chars, bad: () => BadPatternError): { char: number; rest: Chars } {
  let c = chunk;
  if (c.length === 0 || c[0] === '-' || c[0] === ']') throw bad();
  if (c[0] === '\\') {
    c = c.slice(1);
    if (c.length === 0) throw bad();
  }
  const char = (c[0] as string).codePointAt(0) as number;
  const rest = c.slice(1);
  if (rest.length === 0) throw bad();
  return { char, rest };
}
