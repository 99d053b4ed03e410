// Bad-input case "RBAC for Secrets removed while the operator runs": an operator of its own, as a ServiceAccount
// bound to a Role in its own namespace (WATCH_NAMESPACE), loses the Secrets rule; a new CR and a spec change must
// end with a condition that names the forbidden verb on secrets. Used by index.ts; stops the
// operator it started, always.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deployedAtGeneration } from '../../kit/kube.ts';
import { type OperatorHandle, startOperator } from '../../kit/operator.ts';
import { type BadCase, expectWithin, Missed, showCondition } from './case.ts';
import { objects, serviceAccountKubeconfig, watchExit } from './kube.ts';

const NS = 'bad-input-rbac';
const RW = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
/** config/rbac/role.yaml's rules, namespaced; the Secrets rule first, so that it can be removed by index. */
const RULES = [
  { apiGroups: [''], resources: ['secrets'], verbs: RW },
  { apiGroups: [''], resources: ['configmaps', 'services'], verbs: RW },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  { apiGroups: ['apps'], resources: ['deployments'], verbs: RW },
  { apiGroups: ['demo.example.com'], resources: ['nginxes'], verbs: ['get', 'list', 'patch', 'update', 'watch'] },
  { apiGroups: ['demo.example.com'], resources: ['nginxes/finalizers'], verbs: ['update'] },
  { apiGroups: ['demo.example.com'], resources: ['nginxes/status'], verbs: ['get', 'patch', 'update'] },
];

export function rbacCase(): BadCase {
  let op: OperatorHandle | undefined;
  return {
    name: 'RBAC for Secrets removed while it runs',
    bar: 'new CR and spec change: the forbidden verb on secrets in status; operator keeps running',
    async run(e) {
      const { k, ctx } = e;
      await k.core.createNamespace({ body: { metadata: { name: NS } } });
      const kubeconfig = await serviceAccountKubeconfig(k, ctx.plane.kubeconfig, {
        namespace: NS,
        name: 'operator',
        dir: ctx.work,
      });
      await k.kubectl(['apply', '-f', '-'], JSON.stringify(role()));
      const crs = objects(k, { group: 'demo.example.com', version: 'v1alpha1', kind: 'Nginx', plural: 'nginxes' }, NS);
      await crs.create('before', {});
      op = startOperator({
        root: ctx.root,
        kubeconfig,
        watchesFile: nginxWatches(ctx.root, ctx.work),
        helm: ctx.helm,
        env: { WATCH_NAMESPACE: NS },
        logFile: join(ctx.work, 'operator-rbac.log'),
      });
      const life = watchExit(op);
      const deployed = async (name: string) => {
        const c = await crs.get(name);
        return c !== undefined && deployedAtGeneration(c);
      };
      await expectWithin(e, 90_000, async () => ({
        ok: await deployed('before'),
        seen: 'not Deployed with all rights',
      }));
      await k.kubectl([
        '-n',
        NS,
        'patch',
        'role',
        'operator',
        '--type=json',
        '-p',
        '[{"op":"remove","path":"/rules/0"}]',
      ]);
      await crs.create('after', {});
      await crs.patchSpec('before', { replicaCount: 2 });
      const forbidden = async (name: string) => {
        const c = (await crs.get(name))?.status?.conditions ?? [];
        const bad = c.find((x) => (x.type === 'ReleaseFailed' || x.type === 'Irreconcilable') && x.status === 'True');
        // The API server's own words name the verb and the resource: `cannot get resource "secrets"` for the GET of
        // one release record, `cannot list resource "secrets"` for helm's LIST.
        const verb = /cannot (\w+) resource "secrets"/.exec(bad?.message ?? '')?.[1];
        const ok = verb !== undefined;
        return { ok, seen: ok ? `${bad?.type}/${bad?.reason} (${verb} secrets)` : showCondition(bad) };
      };
      const seen = await expectWithin(e, 90_000, async () => {
        const [a, b] = await Promise.all([forbidden('after'), forbidden('before')]);
        return { ok: a.ok && b.ok, seen: `new CR ${a.seen}, changed CR ${b.seen}` };
      });
      if (!life.alive()) throw new Missed(`${seen}, but the operator exited (${life.code()})`);
      return `${seen}, both naming the forbidden verb on secrets; operator running`;
    },
    async cleanup() {
      await op?.stop(30_000);
    },
  };
}

/** A watches file of the sample kind only (the ServiceAccount may read no other kind). */
export function nginxWatches(root: string, dir: string): string {
  const file = join(dir, 'watches-nginx.yaml');
  const entry = { group: 'demo.example.com', version: 'v1alpha1', kind: 'Nginx', chart: join(root, 'charts/nginx') };
  writeFileSync(file, `${JSON.stringify([entry])}\n`);
  return file;
}

function role() {
  const meta = { name: 'operator', namespace: NS };
  return {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta, rules: RULES },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: meta,
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'operator' },
        subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace: NS }],
      },
    ],
  };
}
