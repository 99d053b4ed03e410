// Guards the file headers' "Called by <file>" claims: every file a header of src/ names after "called by" exists and
// imports that module directly (a header that still names the old caller after a move fails here). Test-only.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = sourceFiles(SRC);

/** The leading `//` comment lines of a file, as one line of text. */
function header(path: string): string {
  const lines: string[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.slice(2).trim());
  }
  return lines.join(' ');
}

/**
 * The files a module imports directly (relative imports, resolved to their .ts paths). A module loaded with
 * `await import('./x.js')` counts: the CLI loads each command's modules only when it runs (cmd/cli.ts, tools.ts).
 */
function imports(path: string): Set<string> {
  const found = readFileSync(path, 'utf8').matchAll(/(?:from |import\()'(\.[^']+)'/g);
  return new Set([...found].map((m) => resolve(dirname(path), (m[1] ?? '').replace(/\.js$/, '.ts'))));
}

/** Each `<file>.ts` a header names in a "called by …" sentence (up to its end), with the files it may mean. */
function claims(path: string): { readonly named: string; readonly candidates: string[] }[] {
  const sentences = header(path).matchAll(/[Cc]alled by (.*?)(?:\.(?:\s|$)|;|$)/g);
  return [...sentences].flatMap((s) =>
    [...(s[1] ?? '').matchAll(/[\w/-]+\.ts/g)].map((m) => {
      const named = m[0];
      return { named, candidates: files.filter((f) => f.endsWith(`/${named}`)) };
    }),
  );
}

describe('"Called by <file>" in the headers of src/', () => {
  const all = files.flatMap((f) => claims(f).map((c) => ({ module: f, ...c })));

  it('are made, so that this check checks something', () => {
    expect(all.length).toBeGreaterThan(20);
  });

  it('each name a file that exists and imports the module', () => {
    const wrong = all
      .filter((c) => !c.candidates.some((caller) => imports(caller).has(c.module)))
      .map(
        (c) =>
          `${relative(SRC, c.module)}: called by ${c.named}? ${c.candidates.length === 0 ? 'no such file' : 'it does not import it'}`,
      );
    expect(wrong).toEqual([]);
  });
});
