import { execFile, spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from '../../config/yaml.js';
import { VERSION } from '../../version.js';
import { runInit } from '../init/init.js';
import { PATHS } from './context.js';
import { MAKE_TARGETS } from './makefile.js';

const run = promisify(execFile);
const HAVE_MAKE = spawnSync('make', ['--version']).status === 0 && spawnSync('bash', ['--version']).status === 0;
const KUBECTL = process.env.KUBECTL;
const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

let dir: string;
let fakeKubectl: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scaffold-make-'));
  const opts = { dir, domain: 'example.com', projectName: 'memcached-operator', force: false };
  await runInit(opts, new AbortController().signal);
  // Stands in for kubectl: `kustomize DIR` prints DIR's kustomization.yaml (after checking that DIR/config links to
  // the project's config/), `apply -f FILE` prints FILE.
  fakeKubectl = join(dir, 'fake-kubectl');
  await writeFile(
    fakeKubectl,
    '#!/bin/sh\ncase "$1" in\n  kustomize) for last; do :; done; test -f "$last/config/default/kustomization.yaml" && cat "$last/kustomization.yaml" ;;\n  apply) cat "$3" ;;\n  *) exit 3 ;;\nesac\n',
  );
  await chmod(fakeKubectl, 0o755);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function make(...args: string[]): Promise<string> {
  // A clean environment: variables such as KUBECTL or IMG in the test's environment would override the Makefile's.
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir };
  const { stdout } = await run('make', ['--no-print-directory', ...args], { cwd: dir, env });
  return stdout;
}

describe('the Makefile', () => {
  it('defines operator-sdk variables with the project defaults', async () => {
    const text = await readFile(join(dir, PATHS.makefile), 'utf8');
    for (const line of [
      'VERSION ?= 0.0.1',
      'IMG ?= controller:latest',
      'CONTAINER_TOOL ?= docker',
      'CONTAINER_BUILD_FLAGS ?=',
      'KUBECTL ?= kubectl',
      'HELM_OPERATOR ?= helm-operator',
      `HELM_OPERATOR_VERSION ?= ${VERSION}`,
      'HELM_OPERATOR_PACKAGE ?= helm-operator-ts@$(HELM_OPERATOR_VERSION)',
      'BUNDLE_IMG ?= $(IMAGE_TAG_BASE)-bundle:v$(VERSION)',
      'PACKAGE_NAME ?= memcached-operator',
      'BUNDLE_IMGS ?= $(BUNDLE_IMG)',
      'CATALOG_IMG ?= $(IMAGE_TAG_BASE)-catalog:v$(VERSION)',
    ]) {
      expect(text.split('\n')).toContain(line);
    }
    expect(text).not.toMatch(/https?:\/\/|curl|wget|go install/);
    expect(text).not.toMatch(/^ +\$\(/m); // recipes are tab-indented
    expect(text).not.toContain('BASE_IMAGE'); // the Dockerfile names its bases itself (GO_IMAGE, … build args)
  });

  it.skipIf(!HAVE_MAKE)('lists every documented target in make help (skipped without make and bash)', async () => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the colour codes
    const help = (await make('help')).replace(/\x1b\[[0-9;]*m/g, '');
    for (const target of MAKE_TARGETS.filter((t) => t !== 'all')) {
      expect(help).toMatch(new RegExp(`^  ${target} +\\S`, 'm'));
    }
  });

  it.skipIf(!HAVE_MAKE)('runs the documented commands (skipped without make and bash)', async () => {
    // HELM_OPERATOR given: the commands as they run with a helm-operator on PATH (bin/'s install is its own test).
    const dry = async (...args: string[]) => (await make('-n', 'HELM_OPERATOR=helm-operator', ...args)).trim();
    expect(await dry('run')).toBe('helm-operator run');
    expect(await dry('install')).toBe('kubectl kustomize config/crd | kubectl apply -f -');
    expect(await dry('uninstall')).toBe('kubectl kustomize config/crd | kubectl delete --ignore-not-found -f -');
    expect(await dry('undeploy', 'UNDEPLOY_TIMEOUT=2m')).toBe(
      'kubectl kustomize config/default | helm-operator undeploy --timeout=2m -f -',
    );
    expect(await dry('cleanup')).toBe('helm-operator cleanup');
    expect(await dry('generate-rbac')).toBe('helm-operator generate rbac');
    expect(await dry('generate-rbac', 'RBAC_VALUES=a.yaml Web=b.yaml')).toBe(
      'helm-operator generate rbac --values=a.yaml --values=Web=b.yaml',
    );
    // docker-build packs the CLI the targets run into bin/image/ (the only thing of bin/ in the build context), then
    // builds; with HELM_OPERATOR_PACKAGE or HELM_OPERATOR_VERSION given, npm packs that package instead.
    const build = async (...args: string[]) => (await dry('docker-build', ...args)).replace(/ +/g, ' ').split('\n');
    expect(await build('IMG=r/o:1')).toEqual([
      'rm -rf bin/image && mkdir -p bin/image',
      'helm-operator pack --destination=bin/image',
      'docker build -t r/o:1 .',
    ]);
    const npmPack = (spec: string) =>
      `npm pack --pack-destination bin/image --loglevel=error ${spec} || { echo "npm could not get ${spec} (is it in your npm registry?): set HELM_OPERATOR_PACKAGE=path/to/helm-operator-ts-X.Y.Z.tgz (a packed CLI), or put helm-operator on PATH (npm install -g path/to/helm-operator-ts-X.Y.Z.tgz)" >&2; exit 1; }`;
    expect(
      await build(
        'IMG=r/o:1',
        'CONTAINER_TOOL=podman',
        'CONTAINER_BUILD_FLAGS=--network=host --build-arg GO_IMAGE=m/golang:1',
        'HELM_OPERATOR_PACKAGE=../helm-operator-ts-0.1.0.tgz',
      ),
    ).toEqual([
      'rm -rf bin/image && mkdir -p bin/image',
      npmPack('../helm-operator-ts-0.1.0.tgz'),
      'podman build --network=host --build-arg GO_IMAGE=m/golang:1 -t r/o:1 .',
    ]);
    expect((await build('IMG=r/o:1', 'HELM_OPERATOR_VERSION=9.8.7'))[1]).toBe(npmPack('helm-operator-ts@9.8.7'));
    expect(await dry('bundle-build')).toBe('docker build -f bundle.Dockerfile -t controller-bundle:v0.0.1 .');
    expect(await dry('bundle', 'VERSION=1.2.3', 'CHANNELS=alpha,beta', 'DEFAULT_CHANNEL=alpha', 'IMG=r/o:1')).toBe(
      'kubectl kustomize config/manifests | helm-operator generate bundle --version=1.2.3 --channels=alpha,beta --default-channel=alpha --image=r/o:1 -f -',
    );
    expect((await dry('bundle')).replace(/ +/g, ' ')).toBe(
      'kubectl kustomize config/manifests | helm-operator generate bundle --version=0.0.1 --image=controller:latest -f -',
    );
  });

  it.skipIf(!HAVE_MAKE)(
    'installs helm-operator into bin/ first when none is on PATH (skipped without make)',
    async () => {
      // This machine has no helm-operator on PATH: the tests never install one there.
      const run = (await make('-n', 'run')).trim().split('\n');
      expect(run[0]).toMatch(
        /^npm install --prefix ".*\/bin\/helm-operator-ts" .* helm-operator-ts@\d+\.\d+\.\d+ \|\| \{ echo ".*HELM_OPERATOR_PACKAGE=/,
      );
      expect(run[1]).toMatch(
        /^ln -sf ".*\/bin\/helm-operator-ts\/node_modules\/.bin\/helm-operator" ".*\/bin\/helm-operator"$/,
      );
      expect(run[2]).toMatch(/\/bin\/helm-operator run$/);
      const pkg = (await make('-n', 'HELM_OPERATOR_PACKAGE=/tmp/helm-operator-ts-0.1.0.tgz', 'helm-operator')).trim();
      expect(pkg).toContain('--loglevel=error /tmp/helm-operator-ts-0.1.0.tgz');
      // docker-build, too, runs the CLI that bin/ gets, so it installs it first.
      const build = (await make('-n', 'docker-build')).trim().split('\n');
      expect(build[0]).toMatch(/^npm install --prefix ".*\/bin\/helm-operator-ts" /);
      expect(build.at(-2)).toMatch(/\/bin\/helm-operator pack --destination=bin\/image$/);
    },
  );

  describe('bundle and catalog images', () => {
    // operator-sdk's IMAGE_TAG_BASE, derived from IMG's repository: BUNDLE_IMG and CATALOG_IMG follow IMG and VERSION.
    it.skipIf(!HAVE_MAKE).each([
      ['controller:latest', 'controller'],
      ['op:1.0', 'op'],
      ['host:5000/team/op:v1.2', 'host:5000/team/op'],
      ['host:5000/team/op', 'host:5000/team/op'],
      [`op@${DIGEST}`, 'op'],
      [`reg.io/op:1.0@${DIGEST}`, 'reg.io/op'],
    ])('derives them from IMG=%s (skipped without make and bash)', async (img, base) => {
      const dry = async (...args: string[]) => (await make('-n', `IMG=${img}`, ...args)).trim();
      expect(await dry('bundle-build', 'VERSION=0.0.2')).toBe(
        `docker build -f bundle.Dockerfile -t ${base}-bundle:v0.0.2 .`,
      );
      expect(await dry('bundle-push')).toBe(`docker push ${base}-bundle:v0.0.1`);
      expect(await dry('catalog-push', 'VERSION=1.2.3')).toBe(`docker push ${base}-catalog:v1.2.3`);
      // Given outright, they win.
      expect(await dry('bundle-push', 'BUNDLE_IMG=r/b:1', 'IMAGE_TAG_BASE=x/y')).toBe('docker push r/b:1');
      expect(await dry('catalog-push', 'IMAGE_TAG_BASE=x/y')).toBe('docker push x/y-catalog:v0.0.1');
    });

    it.skipIf(!HAVE_MAKE)(
      'catalog-build names opm and where to put it when there is none (skipped without make)',
      async () => {
        // This machine has no opm on PATH and the project no bin/opm: the tests never build one.
        const failed = await make('catalog-build').then(
          () => undefined,
          (err: { stderr: string; code: number }) => err,
        );
        expect(failed?.code).toBe(2);
        expect(failed?.stderr).toContain("catalog-build needs opm (operator-registry's cmd/opm, v1.59.0 or later)");
        expect(failed?.stderr).toMatch(/no \/.*\/bin\/opm and no opm on PATH/);
        await expect(stat(join(dir, 'catalog'))).rejects.toThrow();
      },
    );

    it.skipIf(!HAVE_MAKE)(
      'catalog-build renders a basic template of BUNDLE_IMGS with opm, then builds (skipped without make)',
      async () => {
        // A stand-in opm: `alpha render-template basic FILE` prints FILE, `generate dockerfile D` writes D.Dockerfile;
        // a stand-in container tool prints its arguments.
        const fakeOpm = join(dir, 'fake-opm');
        await writeFile(
          fakeOpm,
          '#!/bin/sh\necho "opm $*" >> opm.log\ncase "$1 $2" in\n  "alpha render-template") cat "$4" ;;\n  "generate dockerfile") echo FROM x > "$3.Dockerfile" ;;\nesac\n',
        );
        await chmod(fakeOpm, 0o755);
        const out = await make(
          '-s',
          `OPM=${fakeOpm}`,
          'CONTAINER_TOOL=echo',
          'CHANNELS=alpha,stable',
          'DEFAULT_CHANNEL=stable',
          'BUNDLE_IMGS=r/op-bundle:v0.0.1,r/op-bundle:v0.0.2',
          'IMG=r/op:v0.0.2',
          'VERSION=0.0.2',
          'catalog-build',
        );
        expect(out.trim()).toBe('build -f catalog.Dockerfile -t r/op-catalog:v0.0.2 .');
        const entries = [
          { name: 'memcached-operator.v0.0.1' },
          { name: 'memcached-operator.v0.0.2', replaces: 'memcached-operator.v0.0.1' },
        ];
        expect(parse(await readFile(join(dir, 'catalog/index.yaml'), 'utf8'))).toEqual({
          schema: 'olm.template.basic',
          entries: [
            { schema: 'olm.package', name: 'memcached-operator', defaultChannel: 'stable' },
            ...['alpha', 'stable'].map((name) => ({
              schema: 'olm.channel',
              package: 'memcached-operator',
              name,
              entries,
            })),
            { schema: 'olm.bundle', image: 'r/op-bundle:v0.0.1' },
            { schema: 'olm.bundle', image: 'r/op-bundle:v0.0.2' },
          ],
        });
        expect((await readFile(join(dir, 'opm.log'), 'utf8')).trim().split('\n')).toEqual([
          'opm alpha render-template basic catalog.template.yaml --output=yaml',
          'opm validate catalog',
          'opm generate dockerfile catalog',
        ]);
        await rm(join(dir, 'catalog'), { recursive: true });
        await rm(join(dir, 'catalog.Dockerfile'));
        await rm(join(dir, 'catalog.template.yaml'));
        await rm(join(dir, 'opm.log'));
      },
    );
  });

  describe('make deploy', () => {
    it.skipIf(!HAVE_MAKE).each([
      ['controller:latest', { newName: 'controller', newTag: 'latest' }],
      ['op:1.0', { newName: 'op', newTag: '1.0' }],
      ['host:5000/team/op:v1.2', { newName: 'host:5000/team/op', newTag: 'v1.2' }],
      ['host:5000/team/op', { newName: 'host:5000/team/op' }],
      [`op@${DIGEST}`, { newName: 'op', digest: DIGEST }],
      [`reg.io/op:1.0@${DIGEST}`, { newName: 'reg.io/op', newTag: '1.0', digest: DIGEST }],
    ])('sets IMG=%s through an overlay of config/default (skipped without make and bash)', async (img, image) => {
      const overlay = parse(await make('-s', 'deploy', `KUBECTL=${fakeKubectl}`, `IMG=${img}`));
      expect(overlay).toEqual({ resources: ['config/default'], images: [{ name: 'controller', ...image }] });
    });

    it.skipIf(!HAVE_MAKE || !KUBECTL)(
      'renders the Deployment with that image (skipped without make, bash, and KUBECTL naming a kubectl binary)',
      async () => {
        const wrapper = join(dir, 'kubectl-apply-prints');
        const script = `#!/bin/sh\nif [ "$1" = apply ]; then cat "$3"; else exec "${KUBECTL}" "$@"; fi\n`;
        await writeFile(wrapper, script);
        await chmod(wrapper, 0o755);
        const out = await make('-s', 'deploy', `KUBECTL=${wrapper}`, 'IMG=host:5000/team/op:v1.2');
        expect(out).toContain('\n        image: host:5000/team/op:v1.2\n');
        expect(out).toContain('name: memcached-operator-controller-manager\n  namespace: memcached-operator-system\n');
      },
    );
  });
});
