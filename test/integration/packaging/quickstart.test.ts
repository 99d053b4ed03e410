// The README's quickstart, run as a user runs it, so that it stays true: the shell blocks README.md marks
// `<!-- quickstart … -->`, in order, each with bash in the folder the blocks before it left (one terminal), with the
// CLI packed from this repository (the dist/ that make test built: `npm pack --ignore-scripts`, so that its prepack does
// not rebuild dist/ under the tests running from it; install.test.ts packs a clean clone as the README's Install section
// does) and installed into a prefix, and kubectl, the
// plane's helm (HELM_BINARY) and a kubeconfig whose context namespace is a fresh one. A block marked `background` is
// the second terminal's `make run`: started in its own process group and left running; a block marked
// `after Ctrl-C` first stops it with SIGINT to that group, as Ctrl-C does. Two placeholders of the README are
// substituted: the chart path (this repository's charts/nginx) and the domain (one of the test's own, so that the
// CRD is new to the plane); the operator also gets WATCH_NAMESPACE, so that it sees no other test's objects.
// Cleans up its processes, CR, CRD, namespace and folder, also when a block fails.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lockDefaultPorts } from '../../support/default-ports.js';
import { createTestNamespace, testKube } from '../../support/kube.js';
import { type QuickstartBlock, quickstartBlocks } from '../../support/markdown.js';
import { ROOT, runCleanups } from '../../support/operator.js';
import { groupMembers, launchOperator, type OperatorProcess } from '../../support/operator-process.js';
import { NODE_BIN, NPM, run } from '../../support/run.js';

/** The README's placeholders, and what the test puts in their place. */
const CHART_PLACEHOLDER = '../helm-operator-ts/charts/nginx';
const DOMAIN_PLACEHOLDER = 'example.com';
/** The ports `make run`'s helm-operator binds by default (metrics, health probes). */
const DEFAULT_PORTS = [8080, 8081];

const rand = () => Math.random().toString(36).slice(2, 8);

/** Whether nothing listens on `port` (any address), found by binding it for a moment. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });
}

describe('the README quickstart', { timeout: 420_000 }, () => {
  const cluster = inject('cluster');
  const kube = testKube();
  const cleanups: (() => Promise<unknown>)[] = [];
  const work = mkdtempSync(join(tmpdir(), 'quickstart-'));
  const prefix = join(work, 'prefix');
  const domain = `q${rand()}.example.com`;
  const crd = `nginxes.charts.${domain}`;
  const blocks = quickstartBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  const substitute = (script: string) =>
    script.replaceAll(CHART_PLACEHOLDER, join(ROOT, 'charts/nginx')).replaceAll(DOMAIN_PLACEHOLDER, domain);
  /** The first terminal's folder: where the next block runs. */
  let cwd = join(work, 'home');
  let env: NodeJS.ProcessEnv = {};
  let namespace = '';
  let operator: OperatorProcess | undefined;
  let releasePorts: (() => void) | undefined;
  const kubectl = (...args: string[]) => run(cluster.kubectl ?? 'kubectl', args, { env });

  beforeAll(async () => {
    cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
    mkdirSync(cwd, { recursive: true });
    const [ns, deleteNs] = await createTestNamespace(kube, 'quickstart');
    namespace = ns;
    cleanups.push(deleteNs);
    // A user's terminal: no make variables of an outer make (make test), the installed CLI and Node first on PATH.
    const { MAKEFLAGS: _f, MAKELEVEL: _l, MFLAGS: _m, MAKEOVERRIDES: _o, ...outer } = process.env;
    const kubeconfig = join(work, 'kubeconfig');
    const kubectlDir = cluster.kubectl === undefined ? [] : [dirname(cluster.kubectl)];
    env = {
      ...outer,
      PATH: [join(prefix, 'bin'), NODE_BIN, ...kubectlDir, outer.PATH].join(':'),
      KUBECONFIG: kubeconfig,
      HELM_BINARY: Object.values(cluster.helms)[0] ?? 'helm',
      WATCH_NAMESPACE: namespace,
      QUICKSTART_PWD: join(work, 'pwd'),
    };
    copyFileSync(cluster.kubeconfig, kubeconfig);
    await kubectl('config', 'set-context', '--current', `--namespace=${namespace}`);
    // Whatever a failed block left: the CR's finalizer (its operator may be gone), then the CRD.
    cleanups.push(async () => {
      await kubectl('patch', '--type=merge', '-p', '{"metadata":{"finalizers":null}}', `${crd}/nginx-sample`).catch(
        () => undefined,
      );
      await kubectl('delete', 'crd', crd, '--ignore-not-found', '--wait=false');
    });
    cleanups.push(async () => {
      if (operator?.running()) await interrupt(operator).catch(() => operator?.killGroup());
      releasePorts?.(); // once its make run is gone
    });
    const pack = ['pack', '--ignore-scripts', '--pack-destination', work, '--silent'];
    const tgz = join(work, (await run(NPM, pack, { cwd: ROOT })).trim());
    await run(NPM, ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tgz], { env });
  });

  afterAll(async () => {
    await runCleanups(cleanups);
  });

  /** One block in the first terminal: bash, in the folder the last block left; returns its stdout. */
  async function terminal(block: QuickstartBlock): Promise<string> {
    const out = await run('bash', ['-euo', 'pipefail', '-c', `${substitute(block.script)}pwd > "$QUICKSTART_PWD"\n`], {
      cwd,
      env,
    }).catch((err: unknown) => {
      const log = operator === undefined ? '' : `\nmake run's output:\n${operator.output().slice(-4000)}`;
      throw new Error(`README.md line ${block.line}: ${err instanceof Error ? err.message : String(err)}${log}`);
    });
    cwd = readFileSync(join(work, 'pwd'), 'utf8').trim();
    return out;
  }

  /** Ctrl-C in the second terminal: SIGINT to its process group; resolves once every process of it is gone. */
  async function interrupt(op: OperatorProcess): Promise<void> {
    process.kill(-op.pid, 'SIGINT');
    const stopped = await Promise.race([op.exited.then(() => true), delay(60_000, false, { ref: false })]);
    if (!stopped) {
      await op.killGroup();
      throw new Error(`make run did not stop within 60 s of Ctrl-C:\n${op.output().slice(-4000)}`);
    }
    await op.stop(60_000); // exited already: waits until the rest of its group (make, helm-operator, helm) is gone
    expect(groupMembers(op.pid)).toEqual([]);
  }

  it('marks real commands, with the two placeholders the test substitutes', () => {
    const script = blocks.map((b) => b.script).join('');
    expect(script).toContain(`--helm-chart=${CHART_PLACEHOLDER}`);
    expect(script).toContain(`--domain=${DOMAIN_PLACEHOLDER}`);
    expect(blocks.filter((b) => b.mode === 'background')).toHaveLength(1);
    expect(blocks.at(-1)?.mode).toBe('after-interrupt');
  });

  it('runs from an empty folder to a Deployed sample and back to nothing', async () => {
    const watched = { group: `charts.${domain}`, version: 'v1alpha1', plural: 'nginxes', namespace };
    for (const block of blocks) {
      if (block.mode === 'background') {
        // install.test.ts runs a make run too: one of the two at a time.
        releasePorts = await lockDefaultPorts();
        for (const port of DEFAULT_PORTS) {
          expect(await portFree(port), `port ${port} is in use: make run's helm-operator binds it`).toBe(true);
        }
        operator = launchOperator({
          root: ROOT,
          entrypoint: { command: 'bash', args: ['-euo', 'pipefail', '-c', substitute(block.script)], cwd },
          env,
          logFile: join(work, 'make-run.log'),
        });
        continue;
      }
      if (block.mode === 'after-interrupt') {
        if (operator === undefined) throw new Error(`README.md line ${block.line}: Ctrl-C, but nothing runs`);
        await interrupt(operator);
        releasePorts?.();
        // The operator ran from the scaffolded project, watched its kind, and stopped as SIGINT asks.
        expect(operator.logged('Watching resource').map((r) => r.gvk)).toEqual([
          `charts.${domain}/v1alpha1, Kind=Nginx`,
        ]);
        expect(operator.logged('Stopped')).toHaveLength(1);
      }
      const out = await terminal(block);
      if (/kubectl wait --for=condition=Deployed/.test(block.script)) {
        // Deployed by the operator `make run` started, and shown by kubectl get.
        const cr = (await kube.custom.getNamespacedCustomObject({ ...watched, name: 'nginx-sample' })) as {
          status?: { state?: string };
        };
        expect(cr.status?.state).toBe('Deployed');
        expect(out).toMatch(/nginx-sample/);
        const records = await kube.core.listNamespacedSecret({ namespace, labelSelector: 'owner=helm' });
        expect(records.items.map((s) => s.metadata?.labels?.name)).toContain('nginx-sample');
      }
    }
    expect(cwd).toBe(join(work, 'home', 'nginx-operator'));
    // Back to nothing: the release uninstalled (no release record), the CR and the CRD gone.
    const records = await kube.core.listNamespacedSecret({ namespace, labelSelector: 'owner=helm' });
    expect(records.items).toEqual([]);
    expect(await kubectl('get', 'crd', crd, '--ignore-not-found', '-o', 'name')).toBe('');
  });
});
