// Kubernetes helpers of the bad-input chaos scenario: loose CRDs of the group chaos.example.com, CRs of any kind,
// their conditions and events, the operator's /readyz, and a kubeconfig of a ServiceAccount. Used by
// index.ts and the *.ts case tables; touches only what the scenario created.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { crs, KIND, type KindRef, type Kube } from '../../kit/kube.ts';

export type { Condition, KindRef } from '../../kit/kube.ts';

import type { OperatorHandle } from '../../kit/operator.ts';

export const GROUP = 'chaos.example.com';

export const NGINX: KindRef = KIND;
export const kindRef = (kind: string): KindRef => ({
  group: GROUP,
  version: 'v1',
  kind,
  plural: `${kind.toLowerCase()}s`,
});

/** A CRD of `kind` whose spec may be anything (no `type`), so that a spec that is not an object gets through. */
export function looseCrd(kind: string): string {
  const r = kindRef(kind);
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${r.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind, listKind: `${kind}List`, plural: r.plural, singular: kind.toLowerCase() },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { 'x-kubernetes-preserve-unknown-fields': true },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  });
}

export async function installLooseCrd(k: Kube, kind: string): Promise<void> {
  await k.kubectl(['apply', '-f', '-'], looseCrd(kind));
  const name = `${kindRef(kind).plural}.${GROUP}`;
  await k.kubectl(['wait', '--for=condition=Established', '--timeout=60s', `crd/${name}`]);
}

/** CRs of kind `ref` in `namespace` (chaos/kit/kube.ts), created with annotations rather than whole metadata. */
export function objects(k: Kube, ref: KindRef, namespace: string) {
  const c = crs(k, namespace, ref);
  return {
    ...c,
    create: (name: string, spec: unknown, annotations?: Record<string, string>) =>
      c.create(name, spec, annotations ? { annotations } : {}),
  };
}

/** The Events of object `name` in `namespace`, oldest first. */
export async function eventsOf(k: Kube, namespace: string, name: string) {
  const list = await k.core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
  return list.items.map((e) => ({ type: e.type ?? '', reason: e.reason ?? '', message: e.message ?? '' }));
}

/** The HTTP status of the operator's /readyz (its address from the `Serving health probes` log line). */
export async function readyz(op: OperatorHandle): Promise<number> {
  const address = op.logged('Serving health probes')[0]?.address;
  if (typeof address !== 'string') throw new Error('the operator logged no health-probe address');
  return (await fetch(`http://${address}/readyz`, { signal: AbortSignal.timeout(5_000) })).status;
}

/** True while the process has not exited. */
export function watchExit(op: OperatorHandle): { alive(): boolean; code(): number | null | undefined } {
  let code: number | null | undefined;
  let done = false;
  void op.exited.then((c) => {
    code = c;
    done = true;
  });
  return { alive: () => !done, code: () => code };
}

/** ServiceAccount `name` in `namespace` and a kubeconfig (in `dir`) that authenticates as it with a bound token. */
export async function serviceAccountKubeconfig(
  k: Kube,
  adminKubeconfig: string,
  a: { namespace: string; name: string; dir: string },
): Promise<string> {
  const { namespace, name } = a;
  await k.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const token = await k.core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const admin = new KubeConfig();
  admin.loadFromFile(adminKubeconfig);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('the plane kubeconfig has no current cluster');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name, token: token.status?.token ?? '' }],
    contexts: [{ name, cluster: cluster.name, user: name, namespace }],
    currentContext: name,
  });
  const file = join(a.dir, `${name}.kubeconfig`);
  writeFileSync(file, kc.exportConfig(), { mode: 0o600 });
  return file;
}

/** A table cell: one line, no `|`, at most `max` characters. */
export function cell(text: string, max = 110): string {
  const one = text.replaceAll('\n', ' ').replaceAll('|', '/').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
