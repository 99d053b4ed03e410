import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadWatches } from '../../config/watches.js';
import { parse, parseAllDocuments } from '../../config/yaml.js';
import { ConfigError } from '../../core/errors.js';
import { PATHS } from '../templates/context.js';
import { type InitOptions, parseInitArgs } from './flags.js';
import { addProjectResource, readProject, runInit } from './init.js';

const signal = new AbortController().signal;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scaffold-init-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function options(overrides: Partial<InitOptions> = {}): InitOptions {
  return {
    dir,
    domain: 'example.com',
    projectName: 'memcached-operator',
    force: false,
    ...overrides,
  };
}
async function caught(p: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code?: string; message: string };
  }
  throw new Error('expected a rejection');
}
function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

describe('parseInitArgs', () => {
  describe('when only --domain is given', () => {
    it('defaults the project name to the lowercased directory name', () => {
      expect(parseInitArgs(['--domain=example.com'], '/home/me/Memcached-Operator')).toEqual({
        dir: '/home/me/Memcached-Operator',
        domain: 'example.com',
        projectName: 'memcached-operator',
        force: false,
      });
    });
  });

  describe('when every flag is given', () => {
    it.each([
      [['--domain', 'my.org', '--project-name', 'shop', '--force']],
      [['--domain=my.org', '--project-name=shop', '--force=true']],
    ])('reads them in either form: %j', (argv) => {
      expect(parseInitArgs(argv, '/w/x')).toEqual({
        dir: '/w/x',
        domain: 'my.org',
        projectName: 'shop',
        force: true,
      });
    });

    it("accepts operator-sdk's --plugins=helm (any spelling of the helm plugin) and --project-version=3", () => {
      for (const plugins of ['helm', 'helm.sdk.operatorframework.io/v1', 'base.helm.sdk.operatorframework.io/v1']) {
        expect(parseInitArgs(['--domain=a.b', `--plugins=${plugins}`, '--project-version=3'], '/w/op').domain).toBe(
          'a.b',
        );
      }
      expect(parseInitArgs(['--plugins', 'helm', '--domain', 'a.b'], '/w/op').projectName).toBe('op');
    });

    it('reads --force=false as false', () => {
      expect(parseInitArgs(['--domain=a.b', '--force=false'], '/w/x').force).toBe(false);
    });
  });

  describe('when the arguments are wrong', () => {
    it.each([
      [['--domain=a.b', '--group=cache'], /unknown flag: --group;.*--domain, --project-name, --plugins/],
      // Earlier versions wrote a Dockerfile FROM a base image this flag named; the Dockerfile now builds the image.
      [['--domain=a.b', '--operator-image=reg/op:1'], /unknown flag: --operator-image/],
      [['--domain=a.b', 'extra'], /unexpected argument "extra"/],
      [['--domain'], /flag needs an argument: --domain/],
      [['--domain', '--force'], /flag needs an argument: --domain/],
      [['--domain=a.b', '--force=maybe'], /--force: "maybe" is not a boolean/],
      [[], /--domain is required.*--domain=example.com/],
      [['--domain=Example.com'], /--domain "Example.com" is invalid: a lowercase RFC 1123 subdomain/],
      [['--domain=a..b'], /--domain "a..b" is invalid/],
      [
        ['--domain=a.b', '--project-name=My_Op'],
        /project name \(My_Op\) is invalid: a lowercase RFC 1123 label.*valid --project-name/,
      ],
      [['--domain=a.b', `--project-name=${'a'.repeat(64)}`], /must be no more than 63 characters/],
      [['--domain=a.b', '--plugins=go/v4'], /--plugins "go\/v4": helm-operator scaffolds Helm-based operators only/],
      [['--domain=a.b', '--plugins=helm,ansible'], /use --plugins=helm.*operator-sdk itself for ansible/],
      [['--domain=a.b', '--project-version=2'], /--project-version "2": only PROJECT version 3/],
    ])('%j is a ConfigError that names the flag', (argv, message) => {
      const err = thrown(() => parseInitArgs(argv, '/w/memcached'));
      expect(err).toBeInstanceOf(ConfigError);
      expect(err.message).toMatch(message);
    });

    it('says to pass --project-name when the directory name is not a valid project name', () => {
      const err = thrown(() => parseInitArgs(['--domain=a.b'], '/w/my_project'));
      expect(err.message).toBe(
        "project name (my_project) is invalid: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc'); pass --project-name (it defaults to the directory name)",
      );
    });
  });
});

describe('runInit', () => {
  describe('in an empty directory', () => {
    it('writes the project files, parsable as YAML where they are YAML', async () => {
      const { written, skipped, warnings } = await runInit(options(), signal);
      expect(skipped).toEqual([]);
      expect(warnings).toEqual([]);
      for (const path of ['PROJECT', 'watches.yaml', 'Dockerfile', 'Makefile', '.gitignore', '.dockerignore']) {
        expect(written).toContain(path);
      }
      expect(written).toContain('charts/.gitkeep');
      expect(written).toContain('config/rbac/role.yaml');
      const yamlFiles = written.filter((p) => p.endsWith('.yaml') || p === 'PROJECT');
      expect(yamlFiles.length).toBeGreaterThan(20);
      for (const path of yamlFiles) {
        const docs = parseAllDocuments(await readFile(join(dir, path), 'utf8'));
        const errors = (Array.isArray(docs) ? docs : []).flatMap((d) => d.errors.map((e) => `${path}: ${e.message}`));
        expect(errors).toEqual([]);
      }
    });

    it('writes a watches.yaml with the create api marker that the operator loads as empty', async () => {
      await runInit(options(), signal);
      const text = await readFile(join(dir, PATHS.watches), 'utf8');
      expect(text).toBe(
        "# Use the 'create api' subcommand to add watches to this file.\n# +kubebuilder:scaffold:watch\n",
      );
      const loaded = loadWatches(PATHS.watches, { cwd: dir, env: {} });
      expect(loaded.watches).toEqual([]);
      expect(loaded.warnings.join('\n')).toMatch(/has no entries/);
    });

    it('writes a self-contained Dockerfile: helm, the CLI that make docker-build packs, watches.yaml and charts', async () => {
      await runInit(options(), signal);
      const text = await readFile(join(dir, PATHS.dockerfile), 'utf8');
      const instructions = text.split('\n').filter((l) => /^[A-Z]+ /.test(l));
      // Bases from build args (mirrors), no image of this tool's own that a registry would have to serve.
      const froms = instructions.filter((l) => l.startsWith('FROM ')).map((l) => l.replace(/\$\{(\w+)\}/g, '<$1>'));
      expect(froms).toEqual(['FROM <GO_IMAGE> AS helm', 'FROM <NODE_IMAGE> AS cli', 'FROM <DEBIAN_IMAGE>']);
      expect(text).not.toMatch(/BASE_IMAGE|helm-operator-ts:/);
      expect(instructions).toContain('COPY bin/image/*.tgz /tmp/helm-operator/');
      expect(instructions.slice(-6)).toEqual([
        'WORKDIR /opt/helm',
        'COPY watches.yaml ./watches.yaml',
        'COPY charts ./charts',
        'ENV HOME=/tmp TMPDIR=/tmp',
        'USER 65532:65532',
        'ENTRYPOINT ["helm-operator", "run", "--watches-file=./watches.yaml"]',
      ]);
    });

    it('writes a .dockerignore that lets in only what the Dockerfiles copy: watches.yaml, charts, the CLI package, bundle, catalog', async () => {
      await runInit(options(), signal);
      const text = await readFile(join(dir, '.dockerignore'), 'utf8');
      expect(text.split('\n').filter((l) => l !== '' && !l.startsWith('#'))).toEqual([
        '*',
        '!watches.yaml',
        '!charts',
        '!bundle',
        '!catalog',
        '!bin/image/*.tgz',
      ]);
    });

    it('writes a PROJECT that readProject reads back', async () => {
      await runInit(options(), signal);
      expect(await readProject(dir)).toEqual({
        domain: 'example.com',
        projectName: 'memcached-operator',
        layout: ['helm.sdk.operatorframework.io/v1'],
        resources: [],
      });
    });

    it('writes PROJECT as operator-sdk does (layout helm.sdk.operatorframework.io/v1, version "3"), the tool in a field of its own', async () => {
      await runInit(options(), signal);
      const text = await readFile(join(dir, PATHS.project), 'utf8');
      expect(parse(text)).toEqual({
        domain: 'example.com',
        layout: ['helm.sdk.operatorframework.io/v1'],
        projectName: 'memcached-operator',
        resources: [],
        scaffolder: 'helm-operator-ts',
        version: '3',
      });
      expect(text).toContain('\nversion: "3"\n');
    });

    it('keeps a project name that YAML would read as a number a string', async () => {
      await runInit(options({ projectName: '1234' }), signal);
      expect((await readProject(dir)).projectName).toBe('1234');
      const kustomization = parse(await readFile(join(dir, PATHS.defaultKustomization), 'utf8')) as {
        labels: { pairs: Record<string, unknown> }[];
      };
      expect(kustomization.labels[0]?.pairs['app.kubernetes.io/name']).toBe('1234');
    });

    it('keeps .gitignore from hiding chart dependency archives', async () => {
      await runInit(options(), signal);
      const lines = (await readFile(join(dir, '.gitignore'), 'utf8')).split('\n');
      expect(lines).toEqual(expect.arrayContaining(['node_modules/', 'dist/', 'bin/', 'bundle/', '*.tgz']));
      expect(lines.indexOf('!charts/**/*.tgz')).toBeGreaterThan(lines.indexOf('*.tgz'));
    });
  });

  describe('when the project name makes names Kubernetes rejects', () => {
    it('warns about a name too long for the metrics Service', async () => {
      const { warnings } = await runInit(options({ projectName: 'a'.repeat(29) }), signal);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /metrics Service would be named a{29}-controller-manager-metrics-service \(64 characters/,
      );
      expect(warnings[0]).toMatch(/at most 28 characters/);
    });

    it('accepts 28 characters without a warning', async () => {
      expect((await runInit(options({ projectName: 'a'.repeat(28) }), signal)).warnings).toEqual([]);
    });

    it('warns about a name starting with a digit', async () => {
      const { warnings } = await runInit(options({ projectName: '9lives' }), signal);
      expect(warnings.join('\n')).toMatch(/starts with a digit: Service names must start with a letter/);
    });
  });

  describe('when the directory was already initialised', () => {
    it('skips the files that are unchanged', async () => {
      const first = await runInit(options(), signal);
      const second = await runInit(options(), signal);
      expect(second.written).toEqual([]);
      expect(second.skipped).toEqual(first.written);
    });

    it('refuses to overwrite changed files without force, and overwrites them with force', async () => {
      await runInit(options(), signal);
      await writeFile(join(dir, PATHS.watches), '- group: mine\n');
      const err = await caught(runInit(options({ domain: 'other.org' }), signal));
      expect(err.code).toBe('SCAFFOLD_EXISTS');
      expect(err.message).toContain('watches.yaml');
      expect(err.message).toContain('PROJECT');
      expect((await readProject(dir)).domain).toBe('example.com');

      const forced = await runInit(options({ domain: 'other.org', force: true }), signal);
      expect(forced.written).toEqual(expect.arrayContaining(['PROJECT', 'watches.yaml']));
      expect(forced.skipped).toContain('config/rbac/role.yaml');
      // The Makefile names no domain: its images follow IMG's repository (IMAGE_TAG_BASE).
      expect(forced.skipped).toContain('Makefile');
      expect((await readProject(dir)).domain).toBe('other.org');
    });
  });

  describe('when the options were not validated by parseInitArgs', () => {
    it('rejects them before writing anything', async () => {
      await expect(runInit(options({ domain: 'Bad Domain' }), signal)).rejects.toThrow(/--domain "Bad Domain"/);
      await expect(readFile(join(dir, 'PROJECT'), 'utf8')).rejects.toThrow(/ENOENT/);
    });
  });
});

describe('addProjectResource', () => {
  it('appends the resource with the project domain, keeps the comments, and reads back', async () => {
    await runInit(options(), signal);
    expect(await addProjectResource(dir, { group: 'cache', version: 'v1alpha1', kind: 'Memcached' })).toBe(true);
    expect(await addProjectResource(dir, { group: 'web', version: 'v1', kind: 'Nginx', domain: 'my.org' })).toBe(true);
    const text = await readFile(join(dir, PATHS.project), 'utf8');
    expect(text).toContain('# Code generated by helm-operator init');
    expect(text).toContain('\n- domain: example.com\n  group: cache\n  kind: Memcached\n  version: v1alpha1\n');
    expect((await readProject(dir)).resources).toEqual([
      { group: 'cache', version: 'v1alpha1', kind: 'Memcached', domain: 'example.com' },
      { group: 'web', version: 'v1', kind: 'Nginx', domain: 'my.org' },
    ]);
  });

  it('returns false and changes nothing when the resource is already listed', async () => {
    await runInit(options(), signal);
    await addProjectResource(dir, { group: 'cache', version: 'v1alpha1', kind: 'Memcached' });
    const before = await readFile(join(dir, PATHS.project), 'utf8');
    expect(await addProjectResource(dir, { group: 'cache', version: 'v1alpha1', kind: 'Memcached' })).toBe(false);
    expect(await readFile(join(dir, PATHS.project), 'utf8')).toBe(before);
  });
});
