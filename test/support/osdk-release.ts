// A release as operator-sdk's helm-operator (v1.42) leaves it: helm 3 (its library's) installs the chart under the
// CR's name with the spec as values, each object gets the chart label and a controller ownerReference (in place of
// any other), the record an ownerReference, the CR its finalizer and operator-sdk's status. Used by the adoption
// test; never imports vitest, never puts values on argv.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestKube } from './kube.js';

const exec = promisify(execFile);

export interface OsdkInstall {
  readonly kube: TestKube;
  /** helm 3 (operator-sdk's library is helm 3). */
  readonly helm3: string;
  readonly kubectl: string;
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string; readonly plural: string };
  readonly namespace: string;
  /** The CR's name: the release's. */
  readonly name: string;
  /** The CR's spec. */
  readonly spec: Record<string, unknown>;
  /** The chart the release is installed from. */
  readonly chart: string;
  /** The chart's name: the `helm.sdk.operatorframework.io/chart` label. */
  readonly chartName: string;
  /** The values the release is installed with. @default the spec */
  readonly values?: Record<string, unknown>;
  /** Give the objects and the record operator-sdk's marks; false: a release plain `helm install` made. @default true */
  readonly marks?: boolean;
}

/** One object of a release manifest: `kind/name`, as kubectl names it. */
export type ObjectRef = string;

/** Creates the CR and its release as operator-sdk would have; returns the release's objects (`kind/name`). */
export async function installAsOperatorSdk(o: OsdkInstall): Promise<ObjectRef[]> {
  const { kube, namespace, name, kind } = o;
  const target = { group: kind.group, version: kind.version, plural: kind.plural, namespace };
  const body = { apiVersion: `${kind.group}/${kind.version}`, kind: kind.kind, metadata: { name }, spec: o.spec };
  const cr = (await kube.custom.createNamespacedCustomObject({ ...target, body })) as {
    metadata: { uid: string; resourceVersion: string };
  };
  const owner = {
    apiVersion: `${kind.group}/${kind.version}`,
    kind: kind.kind,
    name,
    uid: cr.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
  const dir = await mkdtemp(join(tmpdir(), 'osdk-release-'));
  let release: { manifest: string; info: { notes?: string } };
  try {
    const values = join(dir, 'values.json');
    await writeFile(values, JSON.stringify(o.values ?? o.spec), { mode: 0o600 });
    const env = { ...process.env, KUBECONFIG: kube.kubeconfig };
    const args = ['install', name, o.chart, '--namespace', namespace, '--values', values, '--output', 'json'];
    release = JSON.parse((await exec(o.helm3, args, { env, maxBuffer: 64 << 20 })).stdout);
    const objects = objectsOf(release.manifest);
    if (o.marks === false) return objects;
    const patch = JSON.stringify({
      metadata: { labels: { 'helm.sdk.operatorframework.io/chart': o.chartName }, ownerReferences: [owner] },
    });
    for (const ref of objects) {
      await exec(o.kubectl, ['patch', ref, '--namespace', namespace, '--type=merge', '--patch', patch], { env });
    }
    const secret = `sh.helm.release.v1.${name}.v1`;
    const refs = JSON.stringify([{ op: 'add', path: '/metadata/ownerReferences', value: [owner] }]);
    await exec(o.kubectl, ['patch', `secret/${secret}`, '--namespace', namespace, '--type=json', '--patch', refs], {
      env,
    });
    await kube.custom.patchNamespacedCustomObject({
      ...target,
      name,
      body: [{ op: 'add', path: '/metadata/finalizers', value: ['helm.sdk.operatorframework.io/uninstall-release'] }],
    });
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const status = {
      conditions: [
        { type: 'Initialized', status: 'True', lastTransitionTime: now },
        {
          type: 'Deployed',
          status: 'True',
          reason: 'InstallSuccessful',
          message: release.info.notes ?? '',
          lastTransitionTime: now,
        },
      ],
      deployedRelease: { name, manifest: release.manifest },
    };
    const current = (await kube.custom.getNamespacedCustomObject({ ...target, name })) as Record<string, unknown>;
    await kube.custom.replaceNamespacedCustomObjectStatus({ ...target, name, body: { ...current, status } });
    return objects;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `kind/name` of each object of a manifest (the sample charts' documents: one object each, no Lists). */
export function objectsOf(manifest: string): ObjectRef[] {
  const refs: ObjectRef[] = [];
  for (const doc of manifest.split(/^---\s*$/m)) {
    const kind = /^kind:\s*(\S+)/m.exec(doc)?.[1];
    const name = /^metadata:\n(?:[ ].*\n)*?[ ]{2}name:\s*(\S+)/m.exec(doc)?.[1];
    if (kind && name) refs.push(`${kind.toLowerCase()}/${name}`);
  }
  return refs;
}

/** Each object's uid, generation and field managers, by `kind/name`: what an upgrade or a repair would change. */
export async function objectIdentities(
  kubectl: string,
  kubeconfig: string,
  namespace: string,
  refs: readonly ObjectRef[],
): Promise<Record<ObjectRef, { uid: string; generation: number; managers: string[] }>> {
  const env = { ...process.env, KUBECONFIG: kubeconfig };
  const out: Record<ObjectRef, { uid: string; generation: number; managers: string[] }> = {};
  for (const ref of refs) {
    const { stdout } = await exec(
      kubectl,
      ['get', ref, '--namespace', namespace, '--show-managed-fields', '-o', 'json'],
      {
        env,
      },
    );
    const obj = JSON.parse(stdout) as {
      metadata: { uid: string; generation?: number; managedFields?: { manager?: string }[] };
    };
    const managers = [...new Set((obj.metadata.managedFields ?? []).map((f) => f.manager ?? ''))].sort();
    out[ref] = { uid: obj.metadata.uid, generation: obj.metadata.generation ?? 0, managers };
  }
  return out;
}
