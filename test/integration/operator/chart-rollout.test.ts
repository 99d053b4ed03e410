// The throttled chart rollout against the real control plane and the real helm: 20 CRs on chart v1, then the operator
// restarted with v2 upgrades one canary first and then at most two at once (measured from helm's own start and end
// times); a broken v3 halts after the canary with 19 CRs left on v2 and ChartRollout=Halted; a spec change still upgrades.
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { boundAddress } from '../../support/addresses.js';
import { releaseRevisions } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/charts/rollout', import.meta.url));
const N = 20;
const NAMES = Array.from({ length: N }, (_, i) => `r${String(i).padStart(2, '0')}`);
/** Upgrades a changed chart may run at once (the flag), below the workers (5), so that the gate is what limits. */
const LIMIT = 2;

/** helm runs as a wrapper that logs each process's start and end (ns since the epoch), subcommand and release. */
const WRAPPER = `#!/bin/sh
echo "start $$ $(date +%s%N) $1 \${2:-}" >>"$ROLLOUT_HELM_LOG"
"$COUNTING_HELM_REAL" "$@"
rc=$?
echo "end $$ $(date +%s%N) $rc" >>"$ROLLOUT_HELM_LOG"
exit $rc
`;

interface Run {
  readonly release: string;
  readonly start: number;
  readonly end: number;
  readonly ok: boolean;
}

describe('throttled chart rollout', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chart-rollout-'));
  const chart = join(dir, 'rollout');
  const log = join(dir, 'helm.log');
  const wrapper = join(dir, 'helm');
  cpSync(FIXTURE, chart, { recursive: true });
  writeFileSync(wrapper, WRAPPER);
  chmodSync(wrapper, 0o755);
  writeFileSync(log, '');

  const f = useOperatorFixture({
    kinds: [{ kind: 'Rollout', chart }],
    namespaces: ['op-rollout'],
    start: false,
    operator: () => ({
      args: [
        '--reconcile-period=0',
        '--max-concurrent-reconciles=5',
        `--chart-rollout-max-concurrent=${LIMIT}`,
        '--metrics-bind-address=127.0.0.1:0',
      ],
      env: { HELM_BINARY: wrapper, ROLLOUT_HELM_LOG: log },
    }),
  });
  f.onFinalCleanup(async () => rmSync(dir, { recursive: true, force: true }));

  /** Rewrites the chart's version (and so its digest); `broken` adds an object the API server rejects. */
  const chartVersion = (version: string, broken = false) => {
    const file = join(chart, 'Chart.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^version: .*$/m, `version: ${version}`));
    if (broken) {
      // An upper-case name passes helm's rendering and fails on the server, at upgrade time (not Irreconcilable).
      const bad = `{{- if not .Values.fixed }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-Broken\n{{- end }}\n`;
      writeFileSync(join(chart, 'templates', 'broken.yaml'), bad);
    }
  };
  /** The helm upgrades logged since the log was cleared, with their times. */
  const upgrades = (): Run[] => {
    const lines = readFileSync(log, 'utf8').split('\n');
    const starts = new Map<string, { cmd: string; release: string; at: number }>();
    const runs: Run[] = [];
    for (const line of lines) {
      const [what, pid = '', ns = '0', a = '', b = ''] = line.split(' ');
      if (what === 'start') starts.set(pid, { cmd: a, release: b, at: Number(ns) / 1e6 });
      const s = starts.get(pid);
      if (what === 'end' && s?.cmd === 'upgrade') {
        runs.push({ release: s.release, start: s.at, end: Number(ns) / 1e6, ok: a === '0' });
      }
    }
    return runs;
  };
  const maxOverlap = (runs: readonly Run[]) =>
    Math.max(...runs.map((r) => runs.filter((o) => o.start <= r.start && r.start < o.end).length));
  const revision = async (name: string) => (await f.crs.get(name)).status?.deployedRelease?.revision;
  const revisions = async () => Promise.all(NAMES.map(revision));
  const conditions = async (type: string) =>
    Promise.all(NAMES.map(async (n) => (await f.crs.condition(n, type))?.reason));
  const metric = async (name: string) => {
    const at = boundAddress(f.op.output(), 'Serving metrics');
    const body = await (await fetch(`http://${at}/metrics`)).text();
    const line = body.split('\n').find((l) => l.startsWith(`${name}{controller="rollout-controller"}`));
    return line === undefined ? undefined : Number(line.split(' ').at(-1));
  };
  const restartWith = async (version: string, broken = false) => {
    await f.op.stop();
    chartVersion(version, broken);
    writeFileSync(log, '');
    f.start();
  };

  it('installs 20 CRs with chart v1', { timeout: 120_000 }, async () => {
    f.start();
    for (const name of NAMES) await f.create(name, { message: 'hello' });
    await expect.poll(revisions, POLL).toEqual(NAMES.map(() => 1));
  });

  it('upgrades them to v2 one canary first, then at most two at once', { timeout: 120_000 }, async () => {
    await restartWith('0.2.0');
    await expect.poll(revisions, POLL).toEqual(NAMES.map(() => 2));
    const runs = upgrades().sort((a, b) => a.start - b.start);
    expect(runs.map((r) => r.release).sort()).toEqual(NAMES);
    const [first, ...rest] = runs;
    for (const r of rest) expect(r.start).toBeGreaterThanOrEqual(first?.end ?? Number.POSITIVE_INFINITY);
    expect(maxOverlap(runs)).toBeLessThanOrEqual(LIMIT);
    expect(maxOverlap(rest)).toBe(LIMIT); // the limit is used, not just respected
    await expect.poll(() => conditions('ChartRollout'), POLL).toEqual(NAMES.map(() => undefined));
    expect(await metric('helm_operator_chart_rollout_upgraded')).toBe(N);
    expect(await metric('helm_operator_chart_rollout_pending')).toBe(0);
    const logged = f.op.output().split('\n');
    expect(logged.filter((l) => l.includes('"msg":"Chart rollout: upgraded"')).length).toBe(N);
    expect(logged.find((l) => l.includes('"msg":"Chart rollout: upgrading"'))).toContain(`"role":"canary"`);
  });

  it('halts a broken v3 after its canary failed: 19 CRs stay on v2, held with a reason', {
    timeout: 120_000,
  }, async () => {
    await restartWith('0.3.0', true);
    const halted = NAMES.map(() => 'Halted');
    await expect
      .poll(async () => (await conditions('ChartRollout')).filter((r) => r === 'Halted').length, POLL)
      .toBe(N - 1);
    const failed = (await conditions('ReleaseFailed')).map((r, i) => (r ? NAMES[i] : undefined)).filter(Boolean);
    expect(failed).toHaveLength(1);
    const broken = failed[0] ?? '';
    expect((await conditions('ChartRollout')).filter((_r, i) => NAMES[i] !== broken)).toEqual(halted.slice(1));
    expect(await f.crs.condition(broken, 'ReleaseFailed')).toMatchObject({ reason: 'UpgradeError' });
    // Only the canary ran helm upgrade; every other release is still at revision 2, deployed.
    expect(new Set(upgrades().map((r) => r.release))).toEqual(new Set([broken]));
    for (const name of NAMES.filter((n) => n !== broken)) {
      expect(await releaseRevisions(f.kube, f.ns, name)).toEqual(['1:superseded', '2:deployed']);
    }
    const held = NAMES.find((n) => n !== broken) ?? '';
    const condition = await f.crs.condition(held, 'ChartRollout');
    expect(condition).toMatchObject({ status: 'True', reason: 'Halted' });
    expect(condition?.message).toContain(`the upgrade of the canary ${f.ns}/${broken} failed`);
    expect(await f.crs.condition(held, 'Deployed')).toMatchObject({ status: 'True' });
    const events = await f.kube.core.listNamespacedEvent({
      namespace: f.ns,
      fieldSelector: `involvedObject.name=${held}`,
    });
    expect(events.items.map((e) => e.reason)).toContain('ChartRolloutHalted');
    expect(await metric('helm_operator_chart_rollout_failed')).toBe(1);
    expect(await metric('helm_operator_chart_rollout_pending')).toBe(N - 1);
  });

  it('still upgrades a held CR whose own spec changed, with the new chart', { timeout: 120_000 }, async () => {
    const failed = await conditions('ReleaseFailed');
    const held = NAMES.find((_, i) => failed[i] === undefined) ?? '';
    await f.crs.setSpec(held, { message: 'hello', fixed: true });
    await expect.poll(() => revision(held), POLL).toBe(3);
    await expect.poll(() => f.crs.condition(held, 'ChartRollout'), POLL).toBeUndefined();
    const cm = await f.kube.core.readNamespacedConfigMap({ name: `${held}-rollout`, namespace: f.ns });
    expect(cm.data?.chartVersion).toBe('0.3.0');
    const others = (await conditions('ChartRollout')).filter((r) => r === 'Halted');
    expect(others).toHaveLength(N - 2);
  });
});
