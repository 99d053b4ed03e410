// Guards what the comments of src/ say about files: every file a header names after "called by" exists and imports
// that module directly (a header that still names the old caller after a move fails here), and every `.ts` path any
// comment names exists (a comment that still names a moved or removed file fails here, naming its file and line).
// Test-only.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

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

/** Every `.ts` file under `dir`, tests included. */
function allTsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return allTsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The `.ts` paths the comments of a file name, with their lines. A path is a file name ending in `.ts` (not part of a
 * longer path or a URL), optionally with folders before it (`release/step.ts`, `src/cmd/cli.ts`, `./x.ts`).
 */
function commentPaths(text: string): { readonly path: string; readonly line: number }[] {
  const found: { path: string; line: number }[] = [];
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind !== ts.SyntaxKind.SingleLineCommentTrivia && kind !== ts.SyntaxKind.MultiLineCommentTrivia) continue;
    const start = scanner.getTokenStart();
    for (const m of scanner.getTokenText().matchAll(/(?<![\w./@:-])((?:\.{1,2}\/)*[\w.-]+(?:\/[\w.-]+)*\.ts)\b/g)) {
      const at = start + (m.index ?? 0);
      found.push({ path: m[1] ?? '', line: text.slice(0, at).split('\n').length });
    }
  }
  return found;
}

/**
 * Whether a path a comment of `file` names exists, as the comments write paths: from the repository root
 * (`src/cmd/cli.ts`, `test/…`), from the commenting file's folder or any folder above it up to src/ (`./x.ts`,
 * `release/step.ts` in reconciler/inputs/, `kube/rest.ts` anywhere), or, a bare file name, anywhere in src/.
 */
function pathExists(file: string, path: string, exists: (p: string) => boolean, names: ReadonlySet<string>) {
  if (exists(join(ROOT, path))) return true;
  for (let dir = dirname(file); dir.startsWith(SRC); dir = dirname(dir)) if (exists(resolve(dir, path))) return true;
  return !path.includes('/') && names.has(path);
}

describe('the .ts paths named in the comments of src/', () => {
  const every = allTsFiles(SRC);
  const names = new Set(every.map((f) => basename(f)));
  const named = every.flatMap((file) => commentPaths(readFileSync(file, 'utf8')).map((p) => ({ file, ...p })));

  it('are many, so that this check checks something', () => {
    expect(named.length).toBeGreaterThan(300);
  });

  it('each name a file that exists', () => {
    const missing = named
      .filter((n) => !pathExists(n.file, n.path, existsSync, names))
      .map((n) => `${relative(ROOT, n.file)}:${n.line}: ${n.path} does not exist`);
    expect(missing).toEqual([]);
  });

  it('are found in comments only, and resolved from the root, the folders above, or by file name', () => {
    const text = "// see reconciler/x.ts and https://e.io/y.ts\nconst s = 'kube/z.ts';\n/** ./w.ts, a.test.ts. */";
    expect(commentPaths(text)).toEqual([
      { path: 'reconciler/x.ts', line: 1 },
      { path: './w.ts', line: 3 },
      { path: 'a.test.ts', line: 3 },
    ]);
    const file = join(SRC, 'reconciler/inputs/read.ts');
    const exists = (p: string) => [join(SRC, 'reconciler/release/step.ts'), join(ROOT, 'src/cmd/cli.ts')].includes(p);
    const bare = new Set(['settle.ts']);
    expect(pathExists(file, 'release/step.ts', exists, bare)).toBe(true);
    expect(pathExists(file, 'src/cmd/cli.ts', exists, bare)).toBe(true);
    expect(pathExists(file, 'settle.ts', exists, bare)).toBe(true);
    expect(pathExists(file, 'reconciler/step.ts', exists, bare)).toBe(false);
    expect(pathExists(file, 'period.ts', exists, bare)).toBe(false);
  });
});
