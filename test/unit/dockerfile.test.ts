// A structural linter for the operator's Dockerfile (no Docker engine or hadolint here): parses it (continuations,
// comments, ARG/FROM … AS, JSON-form instructions), applies cheap hadolint-style rules, and checks the image's
// contract (stages, user, entrypoint, layout, production deps, the helm build equal to hack/testenv/build.sh's); then
// the same for the Dockerfile `helm-operator init` scaffolds (src/scaffold/templates/dockerfile.ts), against this one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BASE_IMAGES,
  DOCKERIGNORE,
  HELM_BUILD,
  IMAGE_PACKAGE_DIR,
  IMAGE_USER,
  dockerfile as scaffoldDockerfile,
} from '../../src/scaffold/templates/dockerfile.js';

const root = new URL('../../', import.meta.url);
const read = (p: string) => readFileSync(new URL(p, root), 'utf8');

interface Instr {
  readonly line: number;
  readonly keyword: string;
  readonly args: string;
}
interface Stage {
  readonly image: string;
  readonly name: string | undefined;
  readonly line: number;
  readonly instrs: Instr[];
}
interface Dockerfile {
  readonly globalArgs: Map<string, string | undefined>;
  readonly stages: Stage[];
}

/** Joins `\` continuations (skipping comment and blank lines inside them) and splits into stages. */
function parseDockerfile(text: string): Dockerfile {
  const instrs: Instr[] = [];
  let pending: { line: number; text: string } | undefined;
  text.split('\n').forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith('#') || (trimmed === '' && pending === undefined)) return;
    if (trimmed === '') return; // a blank line inside a continuation is ignored, as by BuildKit
    const cont = /\\\s*$/.test(raw);
    const piece = cont ? raw.replace(/\\\s*$/, '') : raw;
    pending = pending
      ? { line: pending.line, text: `${pending.text} ${piece.trim()}` }
      : { line: i + 1, text: piece.trimEnd() };
    if (cont) return;
    const m = /^\s*(\S+)\s*(.*)$/s.exec(pending.text);
    if (m) instrs.push({ line: pending.line, keyword: (m[1] ?? '').toUpperCase(), args: (m[2] ?? '').trim() });
    pending = undefined;
  });
  const globalArgs = new Map<string, string | undefined>();
  const stages: Stage[] = [];
  for (const ins of instrs) {
    if (ins.keyword === 'FROM') {
      const words = ins.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      const image = expand(words[0] ?? '', globalArgs);
      const name = words[1]?.toUpperCase() === 'AS' ? words[2] : undefined;
      stages.push({ image, name, line: ins.line, instrs: [] });
    } else if (stages.length === 0) {
      if (ins.keyword === 'ARG') for (const [k, v] of argDecls(ins)) globalArgs.set(k, v);
    } else {
      stages[stages.length - 1]?.instrs.push(ins);
    }
  }
  return { globalArgs, stages };
}

function argDecls(ins: Instr): [string, string | undefined][] {
  return ins.args.split(/\s+/).map((d) => {
    const eq = d.indexOf('=');
    return eq < 0 ? [d, undefined] : [d.slice(0, eq), d.slice(eq + 1).replace(/^"(.*)"$/, '$1')];
  });
}

function expand(s: string, vars: Map<string, string | undefined>): string {
  return s.replace(/\$\{(\w+)(?::?-([^}]*))?\}|\$(\w+)/g, (_, a, def, b) => vars.get(a ?? b) ?? def ?? '');
}

/** The array of a JSON-form instruction (`["a", "b"]`), or undefined for shell form. */
function jsonForm(ins: Instr): string[] | undefined {
  if (!ins.args.startsWith('[')) return undefined;
  try {
    const v: unknown = JSON.parse(ins.args);
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined;
  } catch {
    return undefined;
  }
}

/** `--from=build src dest` → flags and positional words. */
function words(ins: Instr): { flags: Map<string, string>; rest: string[] } {
  const all = jsonForm(ins) ?? ins.args.split(/\s+/).filter((w) => w !== '');
  const flags = new Map<string, string>();
  const rest: string[] = [];
  for (const w of all) {
    const m = /^--([\w-]+)(?:=(.*))?$/.exec(w);
    if (m && rest.length === 0) flags.set(m[1] ?? '', m[2] ?? 'true');
    else rest.push(w);
  }
  return { flags, rest };
}

/** `ENV A=1 B=2` and the legacy `ENV A 1`. */
function envPairs(ins: Instr): [string, string][] {
  if (!ins.args.includes('=') || /^\w+\s/.test(ins.args.split('=')[0] ?? '')) {
    const [k, ...v] = ins.args.split(/\s+/);
    return [[k ?? '', v.join(' ')]];
  }
  return [...ins.args.matchAll(/(\w+)=("[^"]*"|\S*)/g)].map((m) => [m[1] ?? '', (m[2] ?? '').replace(/^"|"$/g, '')]);
}

interface Finding {
  readonly code: string;
  readonly line: number;
}

const BUILTIN_VARS = new Set(['PATH', 'HOME', 'TARGETARCH', 'TARGETOS', 'TARGETPLATFORM', 'BUILDPLATFORM']);

/** hadolint-style rules (DLxxxx where hadolint has one) plus this project's own (named). */
function lint(df: Dockerfile): Finding[] {
  const out: Finding[] = [];
  const add = (code: string, line: number) => out.push({ code, line });
  const names = new Set<string>();
  df.stages.forEach((stage, idx) => {
    const [image, tag] = stage.image.split('@')[0]?.split(/:(?=[^/]*$)/) ?? [];
    const isStage = [...names].includes(image ?? '');
    if (image !== 'scratch' && !isStage && !stage.image.includes('@')) {
      if (!tag) add('DL3006', stage.line);
      else if (tag === 'latest') add('DL3007', stage.line);
    }
    if (stage.name) {
      if (names.has(stage.name)) add('DL3024', stage.line);
    }
    const declared = new Set<string>(BUILTIN_VARS);
    let workdir = false;
    let pipefail = false;
    for (const ins of stage.instrs) {
      const { flags, rest } = words(ins);
      for (const m of ins.args.matchAll(/\$\{(\w+)[^}]*\}|\$([A-Za-z_]\w*)/g)) {
        if (!declared.has(m[1] ?? m[2] ?? '')) add('UNDECLARED-ARG', ins.line);
      }
      switch (ins.keyword) {
        case 'ARG':
          for (const [k] of argDecls(ins)) declared.add(k);
          break;
        case 'ENV':
          for (const [k] of envPairs(ins)) declared.add(k);
          break;
        case 'WORKDIR':
          workdir = true;
          if (!ins.args.startsWith('/') && !ins.args.startsWith('$')) add('DL3000', ins.line);
          break;
        case 'SHELL':
          pipefail = (jsonForm(ins) ?? []).join(' ').includes('-o pipefail');
          break;
        case 'MAINTAINER':
          add('DL4000', ins.line);
          break;
        case 'ADD':
          add('DL3020', ins.line);
          break;
        case 'ENTRYPOINT':
        case 'CMD':
          if (!jsonForm(ins)) add('DL3025', ins.line);
          if (stage.instrs.filter((i) => i.keyword === ins.keyword).length > 1) add('DL4003', ins.line);
          break;
        case 'COPY': {
          const from = flags.get('from');
          if (from !== undefined) {
            if (from === stage.name) add('DL3023', ins.line);
            else if (!names.has(from)) add('DL3022', ins.line);
          }
          const dest = rest[rest.length - 1] ?? '';
          if (rest.length > 2 && !dest.endsWith('/')) add('DL3021', ins.line);
          if (!dest.startsWith('/') && !workdir) add('DL3045', ins.line);
          break;
        }
        case 'RUN': {
          const sh = ins.args;
          if (/(^|[;&|(]\s*)cd\s/.test(sh)) add('DL3003', ins.line);
          if (/[^|]\|[^|]/.test(sh) && !pipefail && !/set -\w*o pipefail|set -o pipefail/.test(sh)) {
            add('DL4006', ins.line);
          }
          if (/\b(curl|wget)\b/.test(sh)) add('NO-DOWNLOAD', ins.line);
          if (/\bnpm\s+(install|i|add)\b/.test(sh)) add('NPM-CI-ONLY', ins.line);
          if (/\b(apt|apt-get)\b/.test(sh)) add('NO-APT', ins.line);
          break;
        }
      }
    }
    if (idx === df.stages.length - 1) {
      const user = [...stage.instrs].reverse().find((i) => i.keyword === 'USER')?.args;
      if (!user || /^(root|0)(:|$)/.test(user)) add('DL3002', stage.line);
      else if (!/^\d+(:\d+)?$/.test(user)) add('NUMERIC-USER', stage.line);
    }
    if (stage.name) names.add(stage.name);
  });
  return out;
}

const text = read('Dockerfile');
const df = parseDockerfile(text);
const final = df.stages[df.stages.length - 1] as Stage;
const stage = (name: string) => df.stages.find((s) => s.name === name) as Stage;
const runs = (s: Stage) => s.instrs.filter((i) => i.keyword === 'RUN').map((i) => i.args);
const last = (s: Stage, keyword: string) => [...s.instrs].reverse().find((i) => i.keyword === keyword);
/** Each COPY of a stage as {from, sources, dest} with dest resolved against the WORKDIR in force. */
const copies = (s: Stage) => {
  let wd = '/';
  return s.instrs.flatMap((ins) => {
    if (ins.keyword === 'WORKDIR') wd = ins.args;
    if (ins.keyword !== 'COPY') return [];
    const { flags, rest } = words(ins);
    const dest = rest[rest.length - 1] ?? '';
    const abs = dest.startsWith('/') ? dest : `${wd}/${dest.replace(/^\.\/?/, '')}`.replace(/\/+$/, '');
    return [{ from: flags.get('from'), sources: rest.slice(0, -1), dest: abs }];
  });
};

describe('the Dockerfile parser', () => {
  it('joins continuations, skips comments inside them and reads ARG defaults into FROM', () => {
    const p = parseDockerfile(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Dockerfile variable syntax, not a JS template
      'ARG V=1.2\nFROM img:${V} AS one\nRUN a \\\n# inside\n  b \\\n\n  c\nENTRYPOINT ["x", "y"]\nFROM one\n',
    );
    expect(p.stages.map((s) => [s.image, s.name])).toEqual([
      ['img:1.2', 'one'],
      ['one', undefined],
    ]);
    expect(p.stages[0]?.instrs.map((i) => [i.line, i.keyword, i.args])).toEqual([
      [3, 'RUN', 'a b c'],
      [8, 'ENTRYPOINT', '["x", "y"]'],
    ]);
    expect(jsonForm(p.stages[0]?.instrs[1] as Instr)).toEqual(['x', 'y']);
  });
});

describe('the linter', () => {
  it('flags each rule on a Dockerfile that breaks it', () => {
    const bad = parseDockerfile(
      [
        'FROM node AS a',
        'FROM node:latest AS a',
        'MAINTAINER me',
        'ADD https://example.com/x.tgz /x',
        'COPY --from=nowhere /x /y',
        'COPY --from=a /x /y',
        'COPY a b c',
        'WORKDIR rel',
        'RUN cd /x && make',
        'RUN ls | sort',
        'RUN curl -sL https://example.com/x',
        'RUN npm install',
        'RUN echo $UNDECLARED',
        'ENTRYPOINT node main.js',
        'CMD ["a"]',
        'CMD ["b"]',
        'USER root',
      ].join('\n'),
    );
    const codes = new Set(lint(bad).map((f) => f.code));
    expect([...codes].sort()).toEqual(
      [
        'DL3006',
        'DL3007',
        'DL3024',
        'DL4000',
        'DL3020',
        'DL3022',
        'DL3023',
        'DL3021',
        'DL3045',
        'DL3000',
        'DL3003',
        'DL4006',
        'NO-DOWNLOAD',
        'NPM-CI-ONLY',
        'UNDECLARED-ARG',
        'DL3025',
        'DL4003',
        'DL3002',
      ].sort(),
    );
    expect(lint(parseDockerfile('FROM a:1\nUSER app\n')).map((f) => f.code)).toEqual(['NUMERIC-USER']);
  });

  it('finds nothing to flag in the operator Dockerfile', () => {
    expect(lint(df)).toEqual([]);
  });
});

describe('the operator image', () => {
  it('is built in the stages helm, build and an unnamed final stage, each from a pinned base', () => {
    expect(df.stages.map((s) => [s.name, s.image])).toEqual([
      ['helm', 'golang:1.26-bookworm'],
      ['build', 'node:24-bookworm-slim'],
      [undefined, 'debian:bookworm-slim'],
    ]);
  });

  it('takes node alone from the build stage into the final one: no npm, npx, corepack or yarn', () => {
    const fromBuild = copies(final).filter((c) => c.from === 'build');
    expect(fromBuild).toContainEqual({ from: 'build', sources: ['/usr/local/bin/node'], dest: '/usr/local/bin/node' });
    expect(
      fromBuild.flatMap((c) => c.sources).filter((src) => /npm|npx|corepack|yarn|lib\/node_modules/.test(src)),
    ).toEqual([]);
  });

  it('has hack/base-images.sh build a stand-in for each base, under the name the FROM resolves to', () => {
    const script = read('hack/base-images.sh');
    const standIns = [...script.matchAll(/^[A-Z]+_IMAGE=docker\.io\/library\/(\S+)$/gm)].map((m) => m[1]);
    expect(standIns.sort()).toEqual([...new Set(df.stages.map((s) => s.image))].sort());
  });

  it('runs `helm-operator run --watches-file=./watches.yaml` in /opt/helm as a numeric non-root user', () => {
    expect(jsonForm(last(final, 'ENTRYPOINT') as Instr)).toEqual([
      'helm-operator',
      'run',
      '--watches-file=./watches.yaml',
    ]);
    expect(last(final, 'CMD')).toBeUndefined();
    expect(last(final, 'WORKDIR')?.args).toBe('/opt/helm');
    const [uid, gid] = (last(final, 'USER')?.args ?? '').split(':').map(Number);
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
  });

  it('keeps HOME and TMPDIR on /tmp and sets NODE_ENV=production', () => {
    const env = Object.fromEntries(final.instrs.filter((i) => i.keyword === 'ENV').flatMap(envPairs));
    expect(env).toMatchObject({ HOME: '/tmp', TMPDIR: '/tmp', NODE_ENV: 'production' });
  });

  it('lays out watches.yaml and charts/ under /opt/helm, helm and the operator under /usr/local/bin', () => {
    expect(copies(final)).toEqual(
      expect.arrayContaining([
        { from: undefined, sources: ['watches.yaml'], dest: '/opt/helm/watches.yaml' },
        { from: undefined, sources: ['charts'], dest: '/opt/helm/charts' },
        { from: 'helm', sources: ['/go/bin/helm'], dest: '/usr/local/bin/helm' },
        { from: 'build', sources: ['/src/dist'], dest: '/opt/helm-operator/dist' },
        { from: 'build', sources: ['/src/node_modules'], dest: '/opt/helm-operator/node_modules' },
        { from: 'build', sources: ['/src/package.json'], dest: '/opt/helm-operator/package.json' },
      ]),
    );
    expect(runs(final)).toContain('ln -s /opt/helm-operator/dist/cmd/main.js /usr/local/bin/helm-operator');
    expect(runs(stage('build')).join('\n')).toMatch(/chmod (0?755|\+x) dist\/cmd\/main\.js/);
    expect(read('dist/cmd/main.js').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('ships production dependencies only: the build stage ends with npm ci --omit=dev', () => {
    const npm = runs(stage('build'))
      .flatMap((r) => r.split('&&'))
      .map((c) => c.trim())
      .filter((c) => c.startsWith('npm '));
    expect(npm[0]).toMatch(/^npm ci\b/);
    expect(npm.indexOf('npm run build')).toBeGreaterThan(0);
    expect(npm[npm.length - 1]).toMatch(/^npm (ci|prune)\b.*--omit=dev/);
    expect(runs(final).join('\n')).not.toMatch(/\bnpm\b/);
  });

  it('builds the same helm as hack/testenv/build.sh: module, version and ldflags', () => {
    const sh = read('hack/testenv/build.sh');
    const version = /HELM3_VERSION=\$\{HELM3_VERSION-([^}]+)\}/.exec(sh)?.[1];
    const fn = /helm_build\(\) \{[\s\S]*?\n\}/.exec(sh)?.[0] ?? '';
    const kubeMinor = /KUBE_VERSION=\$\{KUBE_VERSION:-v1\.(\d+)\.\d+\}/.exec(sh)?.[1];
    const sub = (s: string) =>
      s
        .replaceAll('$1', '3')
        .replaceAll('$2', version ?? '?')
        .replaceAll('$KUBE_MINOR', kubeMinor ?? '?');
    // build.sh: the version flags, then (helm 3) the Kubernetes version of each package its loop names.
    const base = sub(/local ld="([^"]+)"/.exec(fn)?.[1] ?? '');
    const loop = /for p in ([\w/ ]+); do ld\+=" ([^"]+)"; done/.exec(fn);
    const perPackage = (loop?.[1] ?? '').split(' ').map((p) => sub((loop?.[2] ?? '').replaceAll('$p', p)));
    const shLdflags = [base, ...perPackage].join(' ');
    const shModule = sub(/"(helm\.sh\/[^"]+@\$2)"/.exec(fn)?.[1] ?? '');

    const vars = new Map([...df.globalArgs]);
    const run = runs(stage('helm')).find((r) => r.includes('go install')) ?? '';
    const dLdflags = expand(/-ldflags "([^"]+)"/.exec(run)?.[1] ?? '', vars);
    const dModule = expand(/"(helm\.sh\/[^"]+)"/.exec(run)?.[1] ?? '', vars);

    expect(version).toBe('v3.22.0');
    expect(df.globalArgs.get('HELM_VERSION')).toBe(version);
    expect(dModule).toBe(shModule);
    expect(dModule).toBe('helm.sh/helm/v3/cmd/helm@v3.22.0');
    expect(dLdflags.split(/\s+/)).toEqual(shLdflags.split(/\s+/));
    expect(shLdflags).toContain('internal/version.version=v3.22.0');
    // helm's release build stamps the Kubernetes version (else helm 3 assumes v1.20): the test plane's, in both.
    expect(kubeMinor).toBe(df.globalArgs.get('HELM_K8S_MINOR'));
    for (const pkg of ['pkg/chartutil', 'pkg/lint/rules']) {
      expect(shLdflags).toContain(`-X helm.sh/helm/v3/${pkg}.k8sVersionMajor=1`);
      expect(shLdflags).toContain(`-X helm.sh/helm/v3/${pkg}.k8sVersionMinor=${kubeMinor}`);
    }
    // The same build settings: static (CGO off), -trimpath, no VCS stamping.
    expect(sh).toMatch(/CGO_ENABLED=0/);
    expect(sh).toMatch(/GOFLAGS="[^"]*-trimpath[^"]*-buildvcs=false/);
    const helmEnv = Object.fromEntries(
      stage('helm')
        .instrs.filter((i) => i.keyword === 'ENV')
        .flatMap(envPairs),
    );
    expect(helmEnv).toMatchObject({ CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false' });
    expect(run).toMatch(/go install -trimpath /);
  });
});

describe('.dockerignore', () => {
  const ignored = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

  it('keeps build outputs, tools, caches and test artefacts out of the context', () => {
    expect(ignored).toEqual(
      expect.arrayContaining(['node_modules', 'dist', '.tools', 'coverage', 'bundle', '.git', 'test']),
    );
  });

  it('ignores nothing the Dockerfile copies from the context', () => {
    const sources = df.stages.flatMap((s) =>
      copies(s)
        .filter((c) => c.from === undefined)
        .flatMap((c) => c.sources),
    );
    expect(sources.sort()).toEqual(
      [
        'charts',
        'package-lock.json',
        'package.json',
        'src',
        'tsconfig.build.json',
        'tsconfig.json',
        'watches.yaml',
      ].sort(),
    );
    for (const src of sources) {
      const hits = ignored.filter((p) => !p.startsWith('!') && (p === src || src.startsWith(`${p}/`)));
      expect(hits, src).toEqual([]);
    }
  });
});

// The Dockerfile `helm-operator init` writes into a project: self-contained (no image of this repository's to pull),
// with this repository's helm build and the same runtime shape as its image.
describe("a scaffolded project's Dockerfile", () => {
  const text = scaffoldDockerfile();
  const sdf = parseDockerfile(text);
  const sFinal = sdf.stages[sdf.stages.length - 1] as Stage;
  const sStage = (name: string) => sdf.stages.find((s) => s.name === name) as Stage;

  it('finds nothing to flag but its npm install: of the packed CLI, which has no lockfile for npm ci', () => {
    const findings = lint(sdf);
    expect(findings.filter((f) => f.code !== 'NPM-CI-ONLY')).toEqual([]);
    expect(findings.map((f) => f.line)).toEqual(
      sStage('cli')
        .instrs.filter((i) => i.keyword === 'RUN' && /\bnpm install\b/.test(i.args))
        .map((i) => i.line),
    );
  });

  it('is built in the stages helm, cli and an unnamed final stage, from the bases of the repository image', () => {
    expect(sdf.stages.map((s) => [s.name, s.image])).toEqual([
      ['helm', 'golang:1.26-bookworm'],
      ['cli', 'node:24-bookworm-slim'],
      [undefined, 'debian:bookworm-slim'],
    ]);
    expect(new Set(sdf.stages.map((s) => s.image))).toEqual(new Set(df.stages.map((s) => s.image)));
    // Build args name the bases (mirrors); their defaults are src's BASE_IMAGES.
    expect(Object.fromEntries([...sdf.globalArgs].filter(([k]) => k.endsWith('_IMAGE')))).toEqual(BASE_IMAGES);
  });

  it("builds the repository image's helm: the same ARG values (src's HELM_BUILD), the same stage text (one cached layer)", () => {
    const helmArgs = (d: Dockerfile) =>
      ['HELM_VERSION', 'HELM_K8S_MAJOR', 'HELM_K8S_MINOR'].map((k) => d.globalArgs.get(k));
    expect(helmArgs(sdf)).toEqual(helmArgs(df));
    expect(helmArgs(df)).toEqual([HELM_BUILD.version, HELM_BUILD.k8sMajor, HELM_BUILD.k8sMinor]);
    // podman and buildah key a layer on its parent and its instruction's text (continuations and all): the helm
    // stage after its FROM is the same text in both files, so the second build reuses the first one's helm.
    const helmStage = (t: string) => /^FROM \S+ AS helm\n([\s\S]*?)\n\n/m.exec(t)?.[1];
    expect(helmStage(text)).toBeDefined();
    expect(helmStage(text)).toBe(helmStage(read('Dockerfile')));
  });

  it('installs the CLI that make docker-build packs into bin/image/, production dependencies only, into a prefix', () => {
    expect(copies(sStage('cli'))).toEqual([
      { from: undefined, sources: [`${IMAGE_PACKAGE_DIR}/*.tgz`], dest: '/tmp/helm-operator/' },
    ]);
    expect(last(sStage('cli'), 'WORKDIR')?.args).toBe('/opt/helm-operator');
    // A plain install in the WORKDIR: --global or --prefix would move npm's global config off the base image's.
    const install = (runs(sStage('cli')).find((r) => r.startsWith('npm install')) ?? '').split(/\s+/);
    expect(install).toEqual(expect.arrayContaining(['--omit=dev', '/tmp/helm-operator/*.tgz']));
    expect(install.filter((w) => /^(-g|--global|--prefix|--location)\b/.test(w))).toEqual([]);
  });

  it('has the runtime shape of the repository image: entrypoint, workdir, user, env, node alone, helm-operator on PATH', () => {
    for (const keyword of ['ENTRYPOINT', 'CMD', 'WORKDIR', 'USER']) {
      expect(last(sFinal, keyword)?.args, keyword).toBe(last(final, keyword)?.args);
    }
    const env = (s: Stage) => Object.fromEntries(s.instrs.filter((i) => i.keyword === 'ENV').flatMap(envPairs));
    expect(env(sFinal)).toEqual(env(final));
    expect(copies(sFinal)).toEqual([
      { from: 'cli', sources: ['/usr/local/bin/node'], dest: '/usr/local/bin/node' },
      { from: 'helm', sources: ['/go/bin/helm'], dest: '/usr/local/bin/helm' },
      { from: 'cli', sources: ['/opt/helm-operator'], dest: '/opt/helm-operator' },
      { from: undefined, sources: ['watches.yaml'], dest: '/opt/helm/watches.yaml' },
      { from: undefined, sources: ['charts'], dest: '/opt/helm/charts' },
    ]);
    // npm's bin link (node_modules/.bin/helm-operator → ../<package>/dist/cmd/main.js, made executable by npm),
    // whatever the package's name.
    expect(runs(sFinal)).toEqual([
      'ln -s /opt/helm-operator/node_modules/.bin/helm-operator /usr/local/bin/helm-operator',
    ]);
    expect(last(sFinal, 'USER')?.args).toBe(IMAGE_USER);
  });

  it('has a .dockerignore that lets in exactly what it copies from the context (and bundle/ and catalog/, for bundle-build and catalog-build)', () => {
    const lines = DOCKERIGNORE.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    const sources = sdf.stages.flatMap((s) =>
      copies(s)
        .filter((c) => c.from === undefined)
        .flatMap((c) => c.sources),
    );
    expect(lines[0]).toBe('*');
    expect(lines.slice(1).sort()).toEqual([...sources, 'bundle', 'catalog'].map((s) => `!${s}`).sort());
  });
});
