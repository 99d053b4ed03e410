// The CLI's dispatch: `version` runs no helm unless asked, every --help answers without loading the operator, and the
// modules cli.ts and tools.ts load before a command runs stay few and free of libraries (the start-up time of
// `helm-operator version` and `--help`; bench/cli-start.ts measures it).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VERSION } from '../version.js';
import { main, VERSION_USAGE } from './cli.js';
import { RUN_USAGE } from './flags/run-usage.js';
import { USAGE } from './usage.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => out.push(String(s)) > 0);
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => err.push(String(s)) > 0);
  return { out, err };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('helm-operator version', () => {
  it("prints the operator's and Node's versions and runs no helm", async () => {
    const io = capture();
    expect(await main(['version'])).toBe(0);
    expect(io.out.join('')).toBe(`helm-operator-ts version: "${VERSION}", node version: "${process.version}"\n`);
  });

  it('adds the helm version with --helm or --helm-binary, and says why when there is none', async () => {
    const io = capture();
    expect(await main(['version', '--helm', '--helm-binary=/nonexistent/helm'])).toBe(0);
    expect(await main(['version', '--helm-binary', '/nonexistent/helm'])).toBe(0);
    for (const line of io.out) {
      expect(line).toMatch(/^helm-operator-ts version: "[^"]+", node version: "[^"]+", helm: "unavailable \(.+\)"\n$/);
    }
    expect(io.out).toHaveLength(2);
  });

  it('prints its usage for --help and refuses an unknown argument with exit 2', async () => {
    const io = capture();
    expect(await main(['version', '--help'])).toBe(0);
    expect(io.out.join('')).toBe(VERSION_USAGE);
    expect(await main(['version', '--short'])).toBe(2);
    expect(io.err.join('')).toMatch(/^helm-operator version: unknown flag "--short"; flags: --helm\n$/);
  });
});

describe('dispatch', () => {
  it('answers run --help and the top-level help from usage texts alone', async () => {
    const io = capture();
    expect(await main(['run', '--help'])).toBe(0);
    expect(await main(['--help'])).toBe(0);
    expect(io.out).toEqual([RUN_USAGE, USAGE]);
  });

  it('refuses an unknown command, and an unknown subcommand of a group, with exit 2', async () => {
    const io = capture();
    expect(await main(['frob'])).toBe(2);
    expect(await main(['create', 'webhook'])).toBe(2);
    expect(io.err.join('')).toMatch(/^helm-operator: unknown command "frob"\n/);
    expect(io.err.join('')).toContain('helm-operator create: unknown subcommand "webhook"; try api');
  });
});

const SRC = join(import.meta.dirname, '..');

/** The modules `file` (relative to src/) loads before its code runs: its value imports (not `import type`), transitively. */
function staticClosure(file: string): { local: string[]; libraries: string[] } {
  const local = new Set<string>();
  const libraries = new Set<string>();
  const visit = (f: string) => {
    if (local.has(f)) return;
    local.add(f);
    const text = readFileSync(join(SRC, f), 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\s)(?:[^;]*?\sfrom\s+)?'([^']+)'/gm)) {
      const spec = m[1] ?? '';
      if (spec.startsWith('.')) visit(join(dirname(f), spec).replace(/\.js$/, '.ts'));
      else if (!spec.startsWith('node:')) libraries.add(spec);
    }
  };
  visit(file);
  return { local: [...local].sort(), libraries: [...libraries] };
}

describe('what a command loads before it runs', () => {
  it.each([
    ['cmd/cli.ts', 12],
    ['cmd/tools.ts', 12],
  ])('%s imports no library and at most %i of our modules statically', (file, most) => {
    const { local, libraries } = staticClosure(file);
    expect(libraries, 'import a library where the command runs: await import(…)').toEqual([]);
    expect(local.length, local.join(', ')).toBeLessThanOrEqual(most);
    expect(local).toContain('core/errors.ts'); // the scan itself works
    expect(local.filter((f) => /^(manager|kube|helm|observability|scaffold|deploy|reconciler)\//.test(f))).toEqual([]);
  });
});

describe("operator-sdk's OLM commands that share a first word", () => {
  it('routes run bundle, run bundle-upgrade and cleanup PACKAGE to their own commands', async () => {
    const { RUN_BUNDLE_USAGE, RUN_BUNDLE_UPGRADE_USAGE, CLEANUP_PACKAGE_USAGE } = await import('./run-bundle.js');
    const io = capture();
    expect(await main(['run', 'bundle', '--help'])).toBe(0);
    expect(await main(['run', 'bundle-upgrade', '-h'])).toBe(0);
    expect(await main(['cleanup', 'memcached-operator', '--help'])).toBe(0);
    expect(io.out).toEqual([RUN_BUNDLE_USAGE, RUN_BUNDLE_UPGRADE_USAGE, CLEANUP_PACKAGE_USAGE]);
  });

  it("checks their flags before reaching a cluster (exit 1, the command's name and the flag)", async () => {
    const io = capture();
    expect(await main(['run', 'bundle', 'example.com/op-bundle:v0.0.1', '--install-mode=Everywhere'])).toBe(1);
    expect(await main(['run', 'bundle-upgrade', 'a:v1', 'b:v2'])).toBe(1);
    expect(await main(['run', 'bundle', 'a:v1', '--use-http', '--skip-tls-verify'])).toBe(1);
    expect(await main(['cleanup', 'memcached-operator', '--frob'])).toBe(1);
    expect(io.err).toEqual([
      expect.stringMatching(/^helm-operator run bundle: --install-mode: "Everywhere" is not one of AllNamespaces/),
      expect.stringMatching(/^helm-operator run bundle-upgrade: run bundle-upgrade: takes exactly one argument, got 2/),
      expect.stringMatching(/^helm-operator run bundle: run bundle: --use-http and --skip-tls-verify cannot both/),
      expect.stringMatching(/^helm-operator cleanup PACKAGE: cleanup: unknown flag "--frob"/),
    ]);
  });

  it('keeps cleanup without a package (a flag value is no package) for CRs whose operator is gone', async () => {
    const { CLEANUP_USAGE } = await import('./tools.js');
    const io = capture();
    expect(await main(['cleanup', '--watches-file', 'w.yaml', '--help'])).toBe(0);
    expect(io.out).toEqual([CLEANUP_USAGE]);
  });
});
