// `helm-operator init` + `create api` make a working project: for a chart made by `helm create` and for a chart
// with values.schema.json (given to init itself, operator-sdk's one step), the generated CRD is served and rejects an invalid spec, and the generated sample CR
// (its spec is the chart's values.yaml, comments kept) installs through the real operator.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestNamespace, isGone, testKube } from '../../support/kube.js';
import { ROOT, runCleanups, startOperator } from '../../support/operator.js';
import { newProject, type Project } from '../../support/project.js';

const POLL = { timeout: 90_000, interval: 250 } as const;
const rand = () => Math.random().toString(36).slice(2, 8);

interface Case {
  readonly title: string;
  readonly createApi: (p: Project) => string[];
  /** Give create api's flags to init instead (operator-sdk's `init --helm-chart … --group …`). */
  readonly initWithApi?: boolean;
  readonly kind: string;
  readonly plural: string;
  readonly group: string;
  /** Specs the API server must reject, with a fragment of its message. */
  readonly invalid: readonly [unknown, string][];
}

const domain = `t${rand()}.example.com`;
const CASES: Case[] = [
  {
    title: 'a chart made by helm create (no --helm-chart)',
    createApi: () => ['create', 'api', '--group=web', '--version=v1alpha1', '--kind=Webapp'],
    kind: 'Webapp',
    plural: 'webapps',
    group: `web.${domain}`,
    invalid: [[42, 'spec: Invalid value']],
  },
  {
    title: 'a chart with values.schema.json, in the same step as init',
    initWithApi: true,
    createApi: () => [
      'create',
      'api',
      `--helm-chart=${join(ROOT, 'test/fixtures/charts/with-schema')}`,
      '--group=greet',
    ],
    kind: 'Greeter',
    plural: 'greeters',
    group: `greet.${domain}`,
    invalid: [
      [{ replicaCount: 'three', greeting: 'hi' }, 'spec.replicaCount'],
      [{ replicaCount: 0, greeting: 'hi' }, 'spec.replicaCount'],
      // values.yaml sets greeting, so a CR may leave it out (helm merges); tls has no default, so secretName stays required.
      [{ replicaCount: 1, tls: {} }, 'spec.tls.secretName: Required value'],
      [{ greeting: '' }, 'spec.greeting'],
    ],
  },
];

describe.each(CASES)('init + create api for $title', (c) => {
  const kube = testKube();
  const cleanups: (() => Promise<unknown>)[] = [];
  let project: Project;
  let ns: string;

  afterAll(async () => {
    await runCleanups(cleanups);
  });

  // Set-up, not a test: writes the project and applies its CRD (waiting until the API server serves it).
  beforeAll(async () => {
    project = newProject('scaffold');
    cleanups.push(async () => project.remove());
    const init = ['init', `--domain=${domain}`, `--project-name=p${rand()}`];
    const [, , ...apiFlags] = c.createApi(project);
    if (c.initWithApi) {
      expect(project.cli(...init, ...apiFlags)).toContain(`created ${c.kind} (${c.group}/v1alpha1, ${c.plural})`);
    } else {
      project.cli(...init);
      project.cli('create', 'api', ...apiFlags);
    }
    const crdFile = join('config/crd/bases', `${c.group}_${c.plural}.yaml`);
    project.kubectl('apply', '--server-side', '-f', crdFile);
    cleanups.push(async () => project.kubectl('delete', '--ignore-not-found', '-f', join(project.dir, crdFile)));
    project.kubectl('wait', '--for=condition=Established', '--timeout=60s', `crd/${c.plural}.${c.group}`);
    const [n, deleteNs] = await createTestNamespace(kube, 'scaffold');
    ns = n;
    cleanups.push(deleteNs);
  });

  it('has a CRD that rejects an invalid spec', async () => {
    for (const [spec, message] of c.invalid) {
      const body = { apiVersion: `${c.group}/v1alpha1`, kind: c.kind, metadata: { name: `bad-${rand()}` }, spec };
      const err = await kube.custom
        .createNamespacedCustomObject({ group: c.group, version: 'v1alpha1', plural: c.plural, namespace: ns, body })
        .then(
          () => undefined,
          (e: unknown) => e as { code?: number; body?: string },
        );
      expect(err?.code, `spec ${JSON.stringify(spec)} must be rejected`).toBe(422);
      expect(String(err?.body)).toContain(message);
    }
  });

  it('has a sample CR, with the chart values and their comments, that installs', async () => {
    const samples = readdirSync(join(project.dir, 'config/samples')).filter((f) => f !== 'kustomization.yaml');
    expect(samples).toHaveLength(1);
    const sampleFile = join(project.dir, 'config/samples', samples[0] ?? '');
    const text = readFileSync(sampleFile, 'utf8');
    expect(text).toMatch(/^\s*# Default values copied from charts\//m);
    // values.yaml's own comments survive under spec (besides that header line).
    expect(
      text.split('\n').filter((l) => /^\s+#/.test(l) && !l.includes('Default values copied')).length,
    ).toBeGreaterThan(0);
    const op = startOperator({ watches: project.watches(), env: { WATCH_NAMESPACE: ns } });
    cleanups.unshift(() => op.stop());
    project.kubectl('apply', '-n', ns, '-f', sampleFile);
    const name = `${c.kind.toLowerCase()}-sample`;
    const target = { group: c.group, version: 'v1alpha1', plural: c.plural, namespace: ns, name };
    const deployed = async () => {
      const cr = (await kube.custom.getNamespacedCustomObject(target)) as {
        status?: { conditions?: { type: string; status: string; message?: string }[] };
      };
      return cr.status?.conditions?.find((x) => x.type === 'Deployed')?.status;
    };
    await expect.poll(deployed, POLL).toBe('True');
    // Deleted while the operator runs, so the release is uninstalled and the finalizer removed.
    await kube.custom.deleteNamespacedCustomObject(target);
    await vi.waitFor(
      async () => expect(await isGone(() => kube.custom.getNamespacedCustomObject(target))).toBe(true),
      POLL,
    );
  });
});
