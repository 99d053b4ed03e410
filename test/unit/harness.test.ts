// The real operator is started by exactly one module for the integration tests, chaos/ and bench/ together
// (test/support/operator-process.ts): a module that spawns a process and names the operator's entry point or its
// `run` subcommand anywhere else is a second launcher. Part of `make test`; reads files only.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const LAUNCHER = 'test/support/operator-process.ts';
const SELF = 'test/unit/harness.test.ts';

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : files(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Whether the module text can start an operator: an async spawn, and the entry point run with `run`. */
function launchesOperator(text: string): boolean {
  const spawns = /import\s*\{[^}]*\b(spawn|fork|execFile)\b[^}]*\}\s*from\s*'node:child_process'/.test(text);
  const names = /main\.js|ENTRYPOINT/.test(text) && /'run'/.test(text);
  return spawns && names;
}

describe('the operator launcher', () => {
  it('is one module for tests, chaos and bench', () => {
    const all = ['test', 'chaos', 'bench'].flatMap((d) => files(join(ROOT, d)));
    const launchers = all
      .filter((f) => launchesOperator(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f))
      .filter((f) => f !== SELF);
    expect(launchers).toEqual([LAUNCHER]);
  });

  it('shares only modules that plain node can load: those chaos/ and bench/ import name .ts files', () => {
    const scripts = ['chaos', 'bench'].flatMap((d) => files(join(ROOT, d)));
    const shared = new Set<string>();
    for (const f of scripts) {
      for (const m of readFileSync(f, 'utf8').matchAll(/from '(\.[^']*test\/support\/[^']+)'/g)) {
        shared.add(resolve(dirname(f), m[1] ?? ''));
      }
    }
    expect(shared.size).toBeGreaterThan(0);
    const jsImports = [...shared].filter((f) => /from '\.[^']*\.js'/.test(readFileSync(f, 'utf8')));
    expect(jsImports.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it('the check finds a second launcher', () => {
    const second = "import { spawn } from 'node:child_process';\nspawn(node, ['dist/cmd/main.js', 'run']);";
    expect(launchesOperator(second)).toBe(true);
    expect(
      launchesOperator("import { spawnSync } from 'node:child_process';\nspawnSync(node, ['main.js', 'run']);"),
    ).toBe(false);
  });
});
