// Several CRs deleted together, with helm 3 and helm 4: one `helm uninstall` process takes their releases (a batch),
// each CR's own reconcile still writes its own event, status and finalizer removal, and a release whose pre-delete hook fails stops
// helm there without costing the others: it is retried alone, reports its own error, and goes once its hooks are off.
// One worker, held by a CR whose delete hooks take seconds, so that the others are all being deleted when it frees.
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { isGone, isNotFound, type TestKube } from '../../support/kube.js';
import { type crClient, ROOT, releaseRevisions } from '../../support/operator.js';
import { useOperatorFixture } from '../../support/operator-fixture.js';

const CHART = `${ROOT}/test/fixtures/charts/hooks`;
const POLL = { timeout: 90_000, interval: 200 } as const;
const NO_HOOKS = 'helm.sdk.operatorframework.io/uninstall-disable-hooks';
const NO_INSTALL_HOOKS = 'helm.sdk.operatorframework.io/install-disable-hooks';
const EVENTS = ['pre-install', 'post-install', 'pre-upgrade', 'post-upgrade', 'pre-delete', 'post-delete'] as const;

const cluster = inject('cluster');
const helms = Object.entries(cluster.helms);
/** Why this cluster cannot run hook Jobs (no Ready node for their pods), or undefined when it can. */
const skipReason =
  cluster.nodes > 0 ? undefined : `the ${cluster.mode} cluster has no Ready node, so hook Jobs never run`;
const title = `uninstall batches with %s${skipReason ? ` (skipped: ${skipReason})` : ''}`;

describe.skipIf(skipReason !== undefined).each(helms)(title, (_, helm) => {
  const helm3 = /^v3\./.test(execFileSync(helm, ['version', '--short'], { encoding: 'utf8' }));
  let kube: TestKube;
  let ns: string;
  let crs: ReturnType<typeof crClient>;

  const f = useOperatorFixture({
    kinds: [{ kind: 'Batched', chart: CHART }],
    namespaces: ['op-batch'],
    helm,
    operator: () => ({ args: ['--reconcile-period=0', '--max-concurrent-reconciles=1'] }),
  });
  beforeAll(() => {
    ({ kube, ns, crs } = f);
  });

  const events = async (name: string) =>
    (await kube.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` })).items.map(
      (e) => ({ type: e.type, reason: e.reason, message: e.message ?? '' }),
    );
  const reasons = async (name: string) => (await events(name)).map((e) => e.reason).sort();
  const deployed = (name: string) =>
    expect.poll(async () => (await crs.condition(name, 'Deployed'))?.reason, POLL).toBe('InstallSuccessful');
  /** helm 3 leaves hook Jobs without an owner behind (helm 4's are owned by the CR). */
  const deleteLeftoverJobs = async (release: string) => {
    if (!helm3) return;
    for (const event of EVENTS) {
      await kube.batch
        .deleteNamespacedJob({ name: `${release}-${event}`, namespace: ns, propagationPolicy: 'Background' })
        .catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
    }
  };

  it('uninstalls the CRs deleted meanwhile in one helm process; one failing hook is retried alone and reported on its CR only', async () => {
    const batch = ['batch-a', 'batch-aa', 'batch-b', 'batch-c', 'batch-d'];
    // The slow CR's delete hooks take 3 s each (a margin for a loaded machine): while its uninstall holds the only worker, the others are deleted.
    // (Install hooks off: only the delete hooks matter here.)
    await f.create('slow', { hookDelayMs: 3000 }, { [NO_INSTALL_HOOKS]: 'true' });
    for (const name of batch)
      await f.create(name, name === 'batch-b' ? { fail: { 'pre-delete': true } } : {}, { [NO_INSTALL_HOOKS]: 'true' });
    for (const name of ['slow', ...batch]) await deployed(name);

    await crs.delete('slow');
    await expect.poll(() => f.op.helmCalls().includes('uninstall'), POLL).toBe(true);
    for (const name of batch) await crs.delete(name);

    // One process for the five, in deletion order; helm stopped at batch-b's failing pre-delete hook.
    await expect.poll(() => f.op.helmCalls(), POLL).toContain(`uninstall ${batch.join(' ')}`);
    for (const name of ['slow', 'batch-a', 'batch-aa', 'batch-c', 'batch-d']) {
      await expect.poll(() => isGone(() => crs.get(name)), POLL).toBe(true);
      expect(await releaseRevisions(kube, ns, name)).toEqual([]);
      // Its own event, exactly once, and no failure of another release in its name.
      expect((await reasons(name)).filter((r) => r?.startsWith('Uninstall'))).toEqual(['UninstallSucceeded']);
    }
    // batch-aa went in batch-a's helm process, but its finalizer was removed by its own reconcile (the uninstall
    // queue answered it its outcome), never by batch-a's.
    const out = f.op.output();
    expect(out).toContain('"release":"batch-a","batch":5,"msg":"Uninstalled together"');
    expect(out).toMatch(/"name":"batch-aa","release":"batch-aa","msg":"Removing finalizer"/);
    expect(out).not.toContain('"batchOf"');
    // batch-b: its own pass ran helm for it alone and reports its own hook failure; it stays until fixed.
    await expect
      .poll(async () => (await crs.condition('batch-b', 'ReleaseFailed'))?.reason, POLL)
      .toBe('UninstallError');
    expect((await crs.condition('batch-b', 'ReleaseFailed'))?.message).toContain('pre-delete');
    const failed = (await events('batch-b')).filter((e) => e.reason === 'UninstallFailed');
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed.every((e) => e.type === 'Warning' && e.message.includes('batch-b-pre-delete'))).toBe(true);
    expect(f.op.helmCalls().filter((c) => c === 'uninstall').length).toBeGreaterThanOrEqual(2); // slow, then b alone
    // After the batch stopped at it, b never joins another batch (c and d may go together, without it).
    expect(f.op.helmCalls().filter((c) => /^uninstall .*batch-b/.test(c))).toEqual([`uninstall ${batch.join(' ')}`]);
    expect(await crs.get('batch-b')).toBeDefined();

    // Its hooks turned off, its next pass uninstalls it.
    await crs.annotate('batch-b', { [NO_HOOKS]: 'true' });
    await expect.poll(() => isGone(() => crs.get('batch-b')), POLL).toBe(true);
    // Hooks off, nothing is left for helm to run: the operator uninstalls it in-process.
    expect(f.op.helmCalls()).not.toContain('uninstall no-hooks');
    for (const name of ['slow', ...batch]) await deleteLeftoverJobs(name);
    // The start-up warm-up rendered this chart through this helm's post-renderer (helm 4: its plugin) without a hitch.
    expect(f.op.output()).toContain('"msg":"Warmed up"');
    expect(f.op.output()).not.toContain('Warm-up skipped');
  });
});
