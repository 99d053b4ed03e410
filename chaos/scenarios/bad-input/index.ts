// Chaos scenario "bad-input": bad CRs, charts, annotations and environment on one long-running operator (next to a
// healthy canary CR that must stay Deployed and still take a spec change), and bad startup inputs on short operator
// processes that must exit with a clear error. Run by chaos/run.ts; stops every operator it starts, in a finally.
import { chmodSync, copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../../../test/support/until.ts';
import { createNamespace, crs, deployedAtGeneration, installSampleCrd, kubeFor } from '../../kit/kube.ts';
import { startOperator } from '../../kit/operator.ts';
import { type Row, row, type Scenario, type ScenarioContext } from '../../kit/scenario.ts';
import { type BadCase, type CaseEnv, type CaseResult, runCases } from './case.ts';
import { CHART_KINDS, chartCases } from './chart-cases.ts';
import { crCases } from './cr-cases.ts';
import { DOOMED_NS, envCases, VANISHING } from './env-cases.ts';
import { cell, GROUP, installLooseCrd, readyz, watchExit } from './kube.ts';
import { rbacCase } from './rbac.ts';
import { EMPTY_NS, runStartupCases, type StartupEnv } from './startup.ts';
import { startupCases } from './startup-cases.ts';

const NS = 'bad-input';
const CANARY = 'canary';

export const badInput: Scenario = {
  name: 'bad-input',
  title: 'Bad input',
  nodes: 0,
  inShort: true,
  async run(ctx) {
    const k = kubeFor(ctx.plane.kubeconfig, join(ctx.plane.bin, 'kubectl'));
    const fixtures = join(ctx.root, 'chaos/fixtures');
    const short = <T extends { readonly short?: boolean }>(all: readonly T[]) =>
      ctx.short ? all.filter((c) => c.short) : all;
    const cases = short<BadCase>([...crCases(), ...chartCases(), ...envCases(), rbacCase()]);
    const startups = short(startupCases());
    ctx.log(`${cases.length} CR cases on one operator, ${startups.length} startup cases`);

    await installSampleCrd(k, ctx.root);
    const kinds = [...new Set(cases.flatMap((c) => c.kinds ?? []))];
    for (const kind of kinds) await installLooseCrd(k, kind);
    for (const ns of [NS, DOOMED_NS, EMPTY_NS]) await createNamespace(k, ns);
    const fakeHelm = fakeHelms(fixtures, ctx.work);
    const op = startOperator({
      root: ctx.root,
      kubeconfig: ctx.plane.kubeconfig,
      watchesFile: watchesFile(ctx, kinds, fixtures),
      helm: fakeHelm('hang-helm.sh'), // the real helm, except for releases named hang-*
      env: { WATCH_NAMESPACE: `${NS},${DOOMED_NS}`, CHAOS_REAL_HELM: ctx.helm },
      logFile: join(ctx.work, 'operator.log'),
    });
    const life = watchExit(op);
    try {
      const canary = crs(k, NS);
      await canary.create(CANARY, { index: 'canary v1' });
      await until('the canary Deployed', async () => deployedOk(await canary.get(CANARY)), {
        timeoutMs: 90_000,
        signal: ctx.signal,
      });
      const env: CaseEnv = { ctx, k, ns: NS, op, fixtures };
      const senv: StartupEnv = { ...ctx, helm: ctx.helm, fakeHelm, signal: ctx.signal, log: ctx.log };
      const t0 = performance.now();
      const [crResults, startupResults] = await Promise.all([runCases(cases, env), runStartupCases(startups, senv)]);
      ctx.log(`cases done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

      const probe = await until('/readyz 200', async () => (await readyz(op)) === 200 && 200, {
        timeoutMs: 30_000,
        signal: ctx.signal,
      }).catch(() => readyz(op).catch((err: unknown) => String(err)));
      const survived = life.alive() && probe === 200;
      const canaryNow = await canary.get(CANARY);
      const stillDeployed = deployedOk(canaryNow);
      await canary.patchSpec(CANARY, { replicaCount: 3, index: 'canary v2' });
      const applied = await until(
        'the canary change applied',
        async () => {
          const cr = await canary.get(CANARY);
          const dep = await k.apps.readNamespacedDeployment({ namespace: NS, name: `${CANARY}-nginx` });
          return deployedOk(cr) && dep.spec?.replicas === 3;
        },
        { timeoutMs: 90_000, signal: ctx.signal },
      ).catch(() => false);

      const results: CaseResult[] = [
        ...crResults.map((r) => (survived ? r : { ...r, ok: false, value: `${r.value}; operator died` })),
        ...startupResults,
      ];
      const rows: Row[] = results.map((r) => row(r.name, cell(r.value), r.bar, r.ok));
      rows.push(
        row(
          'operator during the CR cases',
          life.alive() ? `same process ${op.pid}, /readyz ${probe}` : `exited ${life.code()}`,
          'kept running, /readyz 200',
          survived,
        ),
        row('canary after the bad cases', stillDeployed ? 'Deployed' : statusOf(canaryNow), 'Deployed', stillDeployed),
        row(
          'canary spec change after the bad cases',
          applied ? '3 replicas, Deployed' : 'not applied',
          'applied',
          applied,
        ),
      );
      const clean = results.filter((r) => r.ok).length;
      rows.push(row('bad inputs handled cleanly', `${clean} of ${results.length}`, 'all', clean === results.length));
      return rows;
    } finally {
      await op.stop(60_000).catch(() => op.killGroup());
    }
  },
};

const deployedOk = (cr: Parameters<typeof deployedAtGeneration>[0] | undefined) =>
  cr !== undefined && deployedAtGeneration(cr);

function statusOf(cr: Parameters<typeof deployedAtGeneration>[0] | undefined): string {
  const c = cr?.status?.conditions?.filter((x) => x.status === 'True').map((x) => `${x.type}/${x.reason ?? ''}`);
  return cell(c?.join(', ') || 'no status');
}

/** The sample kind, and each extra kind the chosen cases need, with its chart. */
function watchesFile(ctx: ScenarioContext, kinds: readonly string[], fixtures: string): string {
  const nginx = join(ctx.root, 'charts/nginx');
  const entries = [
    { group: 'demo.example.com', version: 'v1alpha1', kind: 'Nginx', chart: nginx },
    ...kinds.map((kind) => {
      const fixture = CHART_KINDS[kind];
      const chart = fixture ? join(fixtures, fixture) : nginx; // Loose and Vanishing: the sample chart
      return { group: GROUP, version: 'v1', kind, chart };
    }),
  ];
  if (kinds.includes(VANISHING)) ctx.log('the CRD of Vanishing is deleted and recreated by a case');
  const file = join(ctx.work, 'watches.yaml');
  writeFileSync(file, `${JSON.stringify(entries, null, 2)}\n`);
  return file;
}

/** Copies chaos/fixtures/bad-helm/*.sh into the work folder, executable (a checkout may drop the mode bits). */
function fakeHelms(fixtures: string, work: string): (name: string) => string {
  const from = join(fixtures, 'bad-helm');
  for (const f of readdirSync(from)) {
    copyFileSync(join(from, f), join(work, f));
    chmodSync(join(work, f), 0o755);
  }
  return (name) => join(work, name);
}
