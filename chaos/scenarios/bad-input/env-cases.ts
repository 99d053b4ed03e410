// Bad-input cases about the environment of the long-running operator: a helm that hangs (the fake helm of
// chaos/fixtures/bad-helm, for releases named hang-*), its CRD deleted and recreated, a namespace stuck deleting.
// A table for index.ts; cleans up the stuck namespace's hold, touches nothing else.

import { groupMembers } from '../../../test/support/operator-process.ts';
import { deployedAtGeneration } from '../../kit/kube.ts';
import { seconds } from '../../kit/scenario.ts';
import { type BadCase, expectCondition, expectWithin, Missed } from './case.ts';
import { cell, eventsOf, GROUP, installLooseCrd, kindRef, NGINX, objects, watchExit } from './kube.ts';

/** The kind whose CRD is deleted while the operator runs (watched with the sample chart). */
export const VANISHING = 'Vanishing';
/** The namespace that is deleted while a CR in it is deployed (the operator watches it too). */
export const DOOMED_NS = 'bad-input-doomed';
const HOLD = 'chaos.example.com/hold';

export function envCases(): BadCase[] {
  return [helmHangs(), crdDeleted(), ...namespaceDeleted()];
}

const since = (t0: number) => seconds(performance.now() - t0);

function helmHangs(): BadCase {
  const cr = 'hang-helm';
  return {
    name: 'helm hangs (helm-timeout 2s)',
    bar: 'HelmStillRunning event, then ReleaseFailed "timed out"; helm stopped',
    async run(e) {
      const t0 = performance.now();
      const annotations = { 'helm.sdk.operatorframework.io/helm-timeout': '2s' };
      await objects(e.k, NGINX, e.ns).create(cr, {}, annotations);
      const failed = await expectCondition(
        e,
        NGINX,
        cr,
        { type: 'ReleaseFailed', reason: 'InstallError', match: /(?<=helm install of release \S+ )timed out/ },
        150_000,
      );
      const took = since(t0);
      // The operator stops helm 30 s after its --timeout; the retry comes only after the 10 s release backoff.
      const sleeping = groupMembers(e.op.pid).filter((m) => m.comm === 'sleep').length;
      const still = (await eventsOf(e.k, e.ns, cr)).some((x) => x.reason === 'HelmStillRunning');
      const seen = `${still ? 'HelmStillRunning, then ' : 'no HelmStillRunning event; '}${failed} after ${took}`;
      if (!still || sleeping > 0) throw new Missed(`${seen}; ${sleeping} hung helm left running`);
      return seen;
    },
  };
}

function crdDeleted(): BadCase {
  const ref = kindRef(VANISHING);
  const crd = `crd/${ref.plural}.${GROUP}`;
  return {
    name: 'CRD deleted while the operator runs, then recreated',
    bar: 'its CR finalized; Watch error logged, keeps running; new CR Deployed',
    kinds: [VANISHING],
    async run(e) {
      const life = watchExit(e.op);
      const crs = objects(e.k, ref, e.ns);
      await crs.create('vanish-before', {});
      await expectCondition(e, ref, 'vanish-before', { type: 'Deployed', reason: 'InstallSuccessful', match: /./ });
      const t0 = performance.now();
      await e.k.kubectl(['delete', crd, '--wait=true', '--timeout=120s']);
      const gone = since(t0);
      if (!life.alive()) throw new Missed(`the operator exited (${life.code()}) after the CRD deletion`);
      // The server ends the CRs' watch about a second after the CRD is gone; the operator's next watch finds no such
      // resource. Recreating the CRD before that would let the watch resume as if nothing happened.
      const watchErrors = () =>
        e.op.logged('Watch error').filter((l) => l.controller === 'vanishing-controller').length;
      await expectWithin(e, 30_000, async () => ({
        ok: watchErrors() > 0,
        seen: 'no "Watch error" while the CRD is gone',
      }));
      const t1 = performance.now();
      await installLooseCrd(e.k, VANISHING);
      await expectWithin(e, 60_000, async () => {
        try {
          await crs.create('vanish-after', {});
        } catch (err) {
          if ((err as { code?: number }).code !== 409) throw err; // 404 while the kind is not served yet
        }
        return { ok: true, seen: 'created' };
      });
      await expectWithin(e, 150_000, async () => {
        const c = await crs.get('vanish-after');
        const ok = c !== undefined && deployedAtGeneration(c);
        return { ok, seen: `after the recreate: ${JSON.stringify(c?.status?.conditions ?? 'no status')}` };
      });
      if (!life.alive()) throw new Missed(`the operator exited (${life.code()})`);
      const logged = watchErrors();
      const seen = `CRD gone in ${gone}, ${logged} "Watch error" logged; a new CR Deployed ${since(t1)} after the recreate`;
      if (logged === 0) throw new Missed(seen);
      return seen;
    },
  };
}

/** A deployed CR whose namespace is deleted (kept Terminating by a ConfigMap's finalizer), and a CR created then. */
function namespaceDeleted(): BadCase[] {
  let terminating: () => void = () => undefined;
  const deleted = new Promise<void>((resolve) => {
    terminating = resolve;
  });
  const doomed: BadCase = {
    name: 'CR in a namespace being deleted',
    bar: 'release uninstalled (or already gone), finalizer removed, CR gone',
    async run(e) {
      const crs = objects(e.k, NGINX, DOOMED_NS);
      try {
        await crs.create('doomed', {});
        await expectWithin(e, 90_000, async () => {
          const c = await crs.get('doomed');
          return { ok: c !== undefined && deployedAtGeneration(c), seen: 'not Deployed before the deletion' };
        });
        await e.k.core.createNamespacedConfigMap({
          namespace: DOOMED_NS,
          body: { metadata: { name: 'hold', finalizers: [HOLD] }, data: { why: 'keeps the namespace Terminating' } },
        });
        await e.k.core.deleteNamespace({ name: DOOMED_NS });
      } finally {
        terminating();
      }
      const t0 = performance.now();
      return expectWithin(e, 120_000, async () => {
        const c = await crs.get('doomed');
        if (c) return { ok: false, seen: `CR still there: ${JSON.stringify(c.status?.conditions?.at(-1) ?? {})}` };
        const mine = (msg: string) => e.op.logged(msg).some((l) => l.namespace === DOOMED_NS && l.name === 'doomed');
        const how = mine('Uninstalled release') ? 'uninstalled' : mine('Release not found') ? 'already gone' : '?';
        return { ok: how !== '?', seen: `release ${how}, CR gone ${since(t0)} after the namespace deletion` };
      });
    },
    async cleanup(e) {
      await e.k.kubectl([
        '-n',
        DOOMED_NS,
        'patch',
        'configmap',
        'hold',
        '--type=merge',
        '-p',
        '{"metadata":{"finalizers":null}}',
      ]);
    },
  };
  const late: BadCase = {
    name: 'new CR in a namespace being deleted',
    bar: 'the API server refuses it (Forbidden, "being terminated")',
    async run(e) {
      await deleted;
      const ns = await e.k.core.readNamespace({ name: DOOMED_NS });
      if (ns.status?.phase !== 'Terminating') throw new Missed(`namespace is ${ns.status?.phase}, not Terminating`);
      try {
        await objects(e.k, NGINX, DOOMED_NS).create('too-late', {});
      } catch (err) {
        const text = `${(err as { body?: unknown }).body ?? err}`;
        const code = (err as { code?: number }).code;
        if (code === 403 && /because it is being terminated/.test(text))
          return `403: "…because it is being terminated"`;
        throw new Missed(cell(`refused with ${code}: ${text}`));
      }
      throw new Missed('the API server accepted it');
    },
  };
  return [doomed, late];
}
