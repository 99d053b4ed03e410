// The architecture's boundaries as data and a checker: the layer map of src/ (lowest first), the one home module
// of each third-party library, and `violations()`, which reports upward imports, libraries imported elsewhere,
// reads of `process` outside the composition root (src/cmd/), import cycles (type-only imports count),
// re-exports of our own modules (one import path per name), node:http imported as a value (core/node-http.ts has
// it), code outside reconciler/ entering it by any door but its face, and the shared root files of reconciler/
// importing a room.
// Also the test tooling's own boundary: `toolingViolations()` reports chaos/ and bench/ importing each other, or any
// test/ folder but test/support/ (the one kit they share). Used by test/unit/boundaries.test.ts (part of `make test`);
// reads files, never writes.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

/**
 * The layer map, lowest first: a folder of src/ may import its own layer and those below, never above. The
 * architecture section of docs/contributing.md shows the same map.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['', 'core', 'conditions', 'finalizers'], // '' = files directly in src/ (index.ts, version.ts)
  ['kube', 'helm', 'config'],
  [
    'cache',
    'records',
    'uninstall',
    'events',
    'leader',
    'drift',
    'ownership',
    'readiness',
    'server',
    'controller',
    'adoption',
    'chart-rollout',
  ],
  ['observability', 'reconciler'],
  ['dependents', 'references', 'crs'],
  ['deploy', 'scaffold', 'olm'],
  ['manager'],
  ['cmd'],
];
/**
 * The rooms of reconciler/, lowest first: a room may import its own files, a lower room's and the shared files of
 * reconciler/ (types, ports, the run context, errors); only the phases at the top (the hub, the watch kit, settle) import any
 * room. So the rooms meet through the run context and shared types, never through each other's upper floors.
 */
export const ROOMS: readonly string[] = ['status', 'inputs', 'start', 'rollout', 'release', 'deletion'];
/** The files directly in reconciler/ that any room may import; they import no room themselves. */
export const SHARED_ROOT: readonly string[] = ['types.ts', 'run.ts', 'options.ts', 'classify.ts', 'retry.ts'];
/** The reconciler's face: the only files of reconciler/ that code outside it may import. */
export const FACE: readonly string[] = ['reconciler.ts', 'options.ts', 'types.ts'];
/** The one module allowed to import each third-party library. */
export const LIBRARY_HOMES: Readonly<Record<string, string>> = {
  'prom-client': 'observability/metrics.ts',
  pino: 'observability/logger.ts',
  yaml: 'config/yaml.ts',
  'js-yaml': 'helm/manifest-yaml.ts',
};
/** The composition root: the only folder that may read `process` (argv, env, signals, exit code, stdio). */
const ROOT_DIR = 'cmd';

export interface Module {
  readonly file: string; // relative to src/, e.g. "helm/cli.ts"
  readonly imports: readonly string[]; // specifiers as written
  readonly text: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

export function readModules(root = SRC): Module[] {
  return sourceFiles(root).map((path) => {
    const text = readFileSync(path, 'utf8');
    const imports = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
    return { file: relative(root, path), imports, text };
  });
}

const layerOf = (file: string): number => {
  const top = file.includes('/') ? file.slice(0, file.indexOf('/')) : '';
  return LAYERS.findIndex((l) => l.includes(top));
};
const resolveLocal = (from: string, spec: string) => relative('.', join(dirname(from), spec)).replace(/\.js$/, '.ts');
const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

/** Every rule broken by these modules, one line each (empty: the boundaries hold). */
export function violations(modules: readonly Module[]): string[] {
  const out: string[] = [];
  const graph = new Map<string, string[]>();
  for (const m of modules) {
    const local: string[] = [];
    for (const spec of m.imports) {
      if (spec.startsWith('.')) {
        const target = resolveLocal(m.file, spec);
        local.push(target);
        const [from, to] = [layerOf(m.file), layerOf(target)];
        if (from < 0) out.push(`${m.file}: its folder is in no layer of the map`);
        else if (to > from) out.push(`${m.file} imports ${target}, a higher layer`);
        const room = roomBreach(m.file, target) ?? doorBreach(m.file, target);
        if (room) out.push(room);
      } else if (spec === 'node:process' || spec === 'process') {
        if (!m.file.startsWith(`${ROOT_DIR}/`)) out.push(`${m.file} imports ${spec}: only src/${ROOT_DIR}/ may`);
      } else if (!spec.startsWith('node:')) {
        const home = LIBRARY_HOMES[packageOf(spec) ?? ''];
        if (home === undefined) out.push(`${m.file} imports ${spec}, which has no home module in the map`);
        else if (home !== m.file) out.push(`${m.file} imports ${spec}: only ${home} may`);
      }
    }
    graph.set(m.file, local);
    if (m.file !== 'index.ts' && /^export (type )?(\{[^}]*\}|\*( as \w+)?) from '\./m.test(m.text)) {
      out.push(`${m.file} re-exports from another module: import each name from its own module (one path per type)`);
    }
    if (/^import (?!type )[^;]*from 'node:http';/m.test(m.text)) {
      out.push(`${m.file} imports node:http as a value: use core/node-http.ts (an ESM import of it loads undici)`);
    }
    if (!m.file.startsWith(`${ROOT_DIR}/`) && readsProcess(m.file, m.text)) {
      out.push(`${m.file} reads process: only src/${ROOT_DIR}/ may (pass the value in)`);
    }
  }
  for (const cycle of cycles(graph)) out.push(`import cycle: ${cycle.join(' → ')}`);
  return out;
}

/** Where a room of reconciler/ imports a higher room or a phase of reconciler/ (undefined: allowed). */
function roomBreach(file: string, target: string): string | undefined {
  const roomOf = (f: string): string | undefined => {
    const parts = f.split('/');
    return parts[0] === 'reconciler' ? (parts.length > 2 ? parts[1] : '') : undefined;
  };
  const [from, to] = [roomOf(file), roomOf(target)];
  if (from === undefined || from === '' || to === undefined || from === to) return undefined;
  if (to === '') {
    const name = target.slice('reconciler/'.length);
    return SHARED_ROOT.includes(name)
      ? undefined
      : `${file} imports ${target}, a phase of reconciler/ (rooms may import only ${SHARED_ROOT.join(', ')})`;
  }
  const [a, b] = [ROOMS.indexOf(from), ROOMS.indexOf(to)];
  if (a < 0) return `${file}: reconciler/${from}/ is in no room of the map`;
  return b > a ? `${file} imports ${target}, a higher room` : undefined;
}

/**
 * Where code outside reconciler/ imports a file of it other than its face, or a shared root file of reconciler/
 * imports a room (undefined: allowed). So the rooms stay private, and the floor they stand on depends on none of them.
 */
function doorBreach(file: string, target: string): string | undefined {
  const inside = (f: string) => f.startsWith('reconciler/');
  if (!inside(file) && inside(target) && !FACE.includes(target.slice('reconciler/'.length))) {
    return `${file} imports ${target}: code outside reconciler/ imports only its face (${FACE.join(', ')})`;
  }
  const name = file.slice('reconciler/'.length);
  if (inside(file) && SHARED_ROOT.includes(name) && inside(target) && target.split('/').length > 2) {
    return `${file} imports ${target}: the shared root files of reconciler/ import no room`;
  }
  return undefined;
}

/** Whether code (not comments or strings) uses the `process` global. */
function readsProcess(file: string, text: string): boolean {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isIdentifier(node) && node.text === 'process') {
      const p = node.parent;
      const isMemberName = p && ts.isPropertyAccessExpression(p) && p.name === node;
      const isKey = p && (ts.isPropertyAssignment(p) || ts.isPropertySignature(p)) && p.name === node;
      if (!isMemberName && !isKey) found = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Each cycle of the module graph once, as the path that closes it. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (state.get(next) === undefined) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
}

/** A module as the checker sees it, from its path under src/ and its text (for tests of the checker). */
export function moduleOf(file: string, text: string): Module {
  return { file, text, imports: ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName) };
}

/** The test tooling folders at the repository's root: neither imports the other; both share test/support/. */
export const TOOLING: readonly string[] = ['chaos', 'bench'];
/** The one folder of test/ that the tooling may import: the test kit. */
const KIT = 'test/support/';

/** The modules of chaos/ and bench/, each named from the repository root (e.g. "chaos/soak.ts"). */
export function readTooling(root = ROOT): Module[] {
  return TOOLING.flatMap((dir) =>
    sourceFiles(join(root, dir)).map((path) => moduleOf(relative(root, path), readFileSync(path, 'utf8'))),
  );
}

/** Every import of chaos/ and bench/ that crosses their boundary, one line each (empty: it holds). */
export function toolingViolations(modules: readonly Module[]): string[] {
  const out: string[] = [];
  for (const m of modules) {
    const from = m.file.slice(0, m.file.indexOf('/'));
    for (const spec of m.imports.filter((s) => s.startsWith('.'))) {
      const target = normalize(join(dirname(m.file), spec)).replace(/\.js$/, '.ts');
      const to = target.slice(0, target.indexOf('/'));
      if (TOOLING.includes(to) && to !== from) {
        out.push(`${m.file} imports ${target}: chaos/ and bench/ never import each other (share it through ${KIT})`);
      } else if (to === 'test' && !target.startsWith(KIT)) {
        out.push(`${m.file} imports ${target}: ${KIT} is the only kit chaos/ and bench/ import`);
      }
    }
  }
  return out;
}
