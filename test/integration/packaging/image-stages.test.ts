// The operator image's stages checked without Docker: the build stage's production-only `npm ci` runs the compiled
// operator; a directory laid out like the final image (read-only /opt and /usr, HOME=TMPDIR=/tmp, the image's uid
// when we are root) runs the ENTRYPOINT against the test cluster up to a Deployed CR; the helm stage's version.
import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadYaml, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { parse } from '../../../src/config/yaml.js';
import { boundAddress } from '../../support/addresses.js';
import { createTestNamespace, isGone, type TestKube, testKube } from '../../support/kube.js';
import { crClient } from '../../support/operator.js';
import { launchOperator, type OperatorProcess } from '../../support/operator-process.js';
import { NODE_BIN, NPM, run } from '../../support/run.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const DOCKERFILE = read('Dockerfile');
/** The operator image's Node flags (its `ENV NODE_OPTIONS=`), which the layout test runs with. */
const IMAGE_NODE_OPTIONS = /^ENV NODE_OPTIONS=(.+)$/m.exec(DOCKERFILE)?.[1] ?? '';
const HELM_VERSION = /^ARG HELM_VERSION=(\S+)$/m.exec(DOCKERFILE)?.[1];
const ENTRYPOINT = JSON.parse(/^ENTRYPOINT (\[.*\])\s*$/m.exec(DOCKERFILE)?.[1] ?? '[]') as string[];
const [IMAGE_UID, IMAGE_GID] = (/^USER (\d+):(\d+)\s*$/m.exec(DOCKERFILE)?.slice(1) ?? []).map(Number);
const PKG = JSON.parse(read('package.json')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const LOCK = JSON.parse(read('package-lock.json')) as { packages: Record<string, { dev?: boolean }> };
const POLL = { timeout: 60_000, interval: 250 } as const;

/** Hard link when possible (same file system, no copy of 100 MB), else copy. Never changes the original. */
function place(src: string, dest: string): void {
  try {
    linkSync(src, dest);
  } catch {
    copyFileSync(src, dest);
  }
}

/**
 * A module-resolution guard for `node --import`: any module resolved outside `allowed` fails the import. Node walks
 * up from a package to every ancestor's node_modules (a stray /tmp/node_modules would lend the image packages its
 * production install lacks), so the guard, not the layout, proves the install is complete.
 */
function writeGuard(file: string, allowed: string): string {
  const prefix = JSON.stringify(`${pathToFileURL(allowed).href}/`);
  writeFileSync(
    file,
    `import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    const r = next(specifier, context);
    if (r.url.startsWith('file:') && !r.url.startsWith(${prefix})) {
      throw new Error(\`image guard: \${specifier} resolved outside the image, to \${r.url}\`);
    }
    return r;
  },
});
`,
    { mode: 0o644 },
  );
  return `--import=${pathToFileURL(file).href}`;
}

/** Every path under `dir` with its size and mtime: proves nothing was written there. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => {
      const s = statSync(join(dir, p), { throwIfNoEntry: false });
      return `${p} ${s?.size ?? '-'} ${s?.mtimeMs ?? '-'}`;
    })
    .sort();
}

/** The image's ENTRYPOINT in its layout under `root`, through the one launcher, as the image's user when we can. */
function spawnImage(root: string, env: NodeJS.ProcessEnv, asImageUser: boolean): OperatorProcess {
  const [cmd = '', ...args] = ENTRYPOINT;
  return launchOperator({
    root: ROOT,
    entrypoint: {
      command: join(root, 'usr/local/bin', cmd),
      args,
      cwd: join(root, 'opt/helm'),
      ...(asImageUser ? { uid: IMAGE_UID, gid: IMAGE_GID } : {}),
    },
    args: ['--health-probe-bind-address=127.0.0.1:0', '--metrics-bind-address=0'],
    env,
    logFile: join(root, 'operator.log'), // outside the image's tree; the log is written through the inherited fd
  });
}

describe('the operator image, stage by stage, without Docker', () => {
  const cluster = inject('cluster');
  const helmV3 = cluster.helms['helm-v3'];
  let root: string;
  let guard: string; // NODE_OPTIONS for every node of the image
  const app = () => join(root, 'opt/helm-operator');

  // The build stage's last step: production dependencies only, then the compiled dist/ beside them.
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'image-stages-'));
    chmodSync(root, 0o755);
    mkdirSync(app(), { recursive: true });
    for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(ROOT, f), join(app(), f));
    await run(NPM, ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: app(),
      env: { ...process.env, PATH: `${NODE_BIN}:${process.env.PATH ?? ''}` },
      signal: AbortSignal.timeout(170_000),
    });
    if (!existsSync(join(ROOT, 'dist/cmd/main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
    cpSync(join(ROOT, 'dist'), join(app(), 'dist'), { recursive: true });
    chmodSync(join(app(), 'dist/cmd/main.js'), 0o755); // the Dockerfile's chmod
    guard = writeGuard(join(root, 'guard.mjs'), app());
  }, 180_000);

  afterAll(async () => {
    if (!root) return;
    await run('chmod', ['-R', 'u+w', root]).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  });

  it('build stage: the production-only install runs `helm-operator version --helm` and holds no devDependency', async () => {
    const env = { PATH: `${NODE_BIN}:/usr/bin:/bin`, HOME: root, TMPDIR: root, NODE_OPTIONS: guard };
    // The guard works: a module outside the image cannot be loaded.
    const outside = pathToFileURL(join(ROOT, 'node_modules/yaml/dist/index.js')).href;
    await expect(
      run(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(outside)})`], {
        cwd: root,
        env,
      }),
    ).rejects.toThrow('image guard: ');
    const out = await run(process.execPath, [join(app(), 'dist/cmd/main.js'), 'version', '--helm'], {
      cwd: root,
      env: { ...env, HELM_BINARY: helmV3 ?? 'helm' },
    });
    expect(out).toContain(`helm-operator-ts version: "${PKG.version}"`);
    if (helmV3) expect(out).toContain(`helm: "${HELM_VERSION}`);
    const installed = (p: string) => existsSync(join(app(), p));
    // Direct devDependencies that no runtime package needs (the lockfile marks them dev) must be absent.
    const devDirect = Object.keys(PKG.devDependencies).filter((d) => LOCK.packages[`node_modules/${d}`]?.dev === true);
    expect(devDirect).toEqual(expect.arrayContaining(['vitest', 'typescript', '@biomejs/biome', 'testcontainers']));
    expect(devDirect.filter((d) => installed(`node_modules/${d}`))).toEqual([]);
    const devOnly = Object.entries(LOCK.packages).filter(([p, e]) => p !== '' && e.dev === true);
    expect(devOnly.length).toBeGreaterThan(0);
    expect(devOnly.filter(([p]) => installed(p)).map(([p]) => p)).toEqual([]);
    // The runtime dependencies are there; @kubernetes/client-node is a dev dependency now (tests and bench only).
    expect(Object.keys(PKG.dependencies).filter((d) => !installed(`node_modules/${d}`))).toEqual([]);
    expect(installed('node_modules/yaml')).toBe(true);
    expect(installed('node_modules/@kubernetes/client-node')).toBe(false);
  });

  // Only the local test cluster builds helm-v3 from Go modules as the Dockerfile does (TEST_CLUSTER=existing or k3s
  // bring their own helm).
  it.runIf(helmV3 !== undefined)('helm stage: the tests’ helm v3 is the version the Dockerfile builds', async () => {
    expect(HELM_VERSION).toMatch(/^v3\.\d+\.\d+$/);
    const short = (await run(helmV3 ?? '', ['version', '--short'])).trim();
    expect(short).toMatch(new RegExp(`^${HELM_VERSION}(\\+g[0-9a-f]+)?$`));
  });

  describe('final stage: the image layout runs its ENTRYPOINT on a read-only file system', () => {
    let kube: TestKube;
    let ns: string;
    let deleteNs: (() => Promise<void>) | undefined;
    let op: ReturnType<typeof spawnImage> | undefined;
    const sample = parse(read('config/samples/demo_v1alpha1_nginx.yaml')) as {
      metadata: { name: string };
      spec: unknown;
    };
    const kind = { group: 'demo.example.com', version: 'v1alpha1', kind: 'Nginx', plural: 'nginxes' };
    const tmp = () => join(root, 'tmp');
    const workDirs = () => readdirSync(tmp()).filter((f) => f.startsWith('helm-operator-'));
    const asImageUser = process.getuid?.() === 0 && IMAGE_UID !== undefined;

    beforeAll(async () => {
      kube = testKube();
      // The repository's CRD, shared with other tests: created when absent, never deleted.
      const crd = loadYaml<V1CustomResourceDefinition>(read('config/crd/bases/demo.example.com_nginxes.yaml'));
      await kube.apiext.createCustomResourceDefinition({ body: crd }).catch((e: unknown) => {
        if (!(e instanceof Error && 'code' in e && e.code === 409)) throw e;
      });
      await vi.waitFor(async () => {
        const c = await kube.apiext.readCustomResourceDefinition({ name: 'nginxes.demo.example.com' });
        if (!c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True')) {
          throw new Error('the sample CRD is not Established yet');
        }
      }, POLL);
      [ns, deleteNs] = await createTestNamespace(kube, 'image-stages');

      // /opt/helm as the Dockerfile lays it out; helm, node and the helm-operator symlink in /usr/local/bin.
      const helm = join(root, 'opt/helm');
      mkdirSync(helm, { recursive: true });
      copyFileSync(join(ROOT, 'watches.yaml'), join(helm, 'watches.yaml'));
      cpSync(join(ROOT, 'charts'), join(helm, 'charts'), { recursive: true });
      const bin = join(root, 'usr/local/bin');
      mkdirSync(bin, { recursive: true });
      place(helmV3 ?? Object.values(cluster.helms)[0] ?? '', join(bin, 'helm'));
      place(process.execPath, join(bin, 'node'));
      symlinkSync('../../../opt/helm-operator/dist/cmd/main.js', join(bin, 'helm-operator'));
      mkdirSync(join(root, 'etc'));
      copyFileSync(cluster.kubeconfig, join(root, 'etc/kubeconfig'));
      mkdirSync(tmp(), { mode: 0o1777 });
      chmodSync(tmp(), 0o1777);
      if (asImageUser) chownSync(join(root, 'etc/kubeconfig'), IMAGE_UID, IMAGE_GID ?? IMAGE_UID);
      // A read-only root file system: only /tmp stays writable.
      await run('chmod', ['-R', 'a-w', join(root, 'opt')]);
      chmodSync(bin, 0o555);
    });

    afterAll(async () => {
      if (op?.running()) {
        await crClient(kube, kind, ns)
          .delete(sample.metadata.name)
          .catch(() => undefined);
        await op.stop();
      }
      await deleteNs?.();
    });

    it('serves /readyz, deploys a CR, writes only under TMPDIR and removes its work dir on SIGTERM', async () => {
      const before = { opt: snapshot(join(root, 'opt')), bin: snapshot(join(root, 'usr')) };
      const env = {
        PATH: `${join(root, 'usr/local/bin')}:/usr/bin:/bin`,
        HOME: tmp(),
        TMPDIR: tmp(),
        NODE_ENV: 'production',
        NODE_OPTIONS: `${IMAGE_NODE_OPTIONS} ${guard}`.trim(),
        KUBECONFIG: join(root, 'etc/kubeconfig'),
        WATCH_NAMESPACE: ns,
      };
      const started = spawnImage(root, env, asImageUser);
      op = started;
      const probe = () => boundAddress(started.output(), 'Serving health probes');
      await expect.poll(probe, POLL).toMatch(/^127\.0\.0\.1:\d+$/);
      await expect.poll(async () => (await fetch(`http://${probe()}/readyz`)).status, POLL).toBe(200);
      expect(workDirs()).toHaveLength(1);
      // Written by the image's uid (when we could switch to it), which may write nowhere but /tmp.
      if (asImageUser) expect(statSync(join(tmp(), workDirs()[0] ?? '')).uid).toBe(IMAGE_UID);

      const crs = crClient(kube, kind, ns);
      await crs.create(sample.metadata.name, sample.spec);
      await expect.poll(async () => (await crs.condition(sample.metadata.name, 'Deployed'))?.status, POLL).toBe('True');
      const deploy = await kube.apps.readNamespacedDeployment({ name: `${sample.metadata.name}-nginx`, namespace: ns });
      expect(deploy.spec?.replicas).toBe(2);

      await crs.delete(sample.metadata.name);
      await expect.poll(() => isGone(() => crs.get(sample.metadata.name)), POLL).toBe(true);
      await expect
        .poll(
          () =>
            isGone(() => kube.apps.readNamespacedDeployment({ name: `${sample.metadata.name}-nginx`, namespace: ns })),
          POLL,
        )
        .toBe(true);

      expect(await started.stop(), started.output().slice(-2000)).toBe(0);
      expect(workDirs()).toEqual([]);
      expect({ opt: snapshot(join(root, 'opt')), bin: snapshot(join(root, 'usr')) }).toEqual(before);
    });
  });
});
