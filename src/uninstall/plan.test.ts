import { describe, expect, it } from 'vitest';
import { releaseRecord } from '../../test/fakes/helm.js';
import type { Release } from '../helm/types.js';
import { hasDeleteHooksToRun, planUninstall } from './plan.js';

function doc(kind: string, name: string, extra = ''): string {
  const apiVersion =
    kind === 'Deployment'
      ? 'apps/v1'
      : kind.endsWith('WebhookConfiguration')
        ? 'admissionregistration.k8s.io/v1'
        : 'v1';
  return `---\n# Source: demo/templates/${name}.yaml\napiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: ${name}\n${extra}`;
}

function release(manifest: string, more: Partial<Release> = {}): Release {
  return releaseRecord({ namespace: 'ns', version: 2, manifest, ...more });
}

const names = (plan: ReturnType<typeof planUninstall>) =>
  plan.inProcess ? plan.waves.map((w) => w.map((o) => `${o.kind}/${o.metadata.name}`)) : plan.reason;

describe('planUninstall', () => {
  it("deletes in helm's uninstall order, one wave per kind, unknown kinds last and alphabetically", () => {
    const manifest = [
      doc('ConfigMap', 'a'),
      doc('Zebra', 'z'),
      doc('Deployment', 'web'),
      doc('Aardvark', 'x'),
      doc('Service', 'svc'),
      doc('ConfigMap', 'b'),
    ].join('');
    expect(names(planUninstall(release(manifest), { disableHooks: false, helmMajor: 3 }))).toEqual([
      ['Service/svc'],
      ['Deployment/web'],
      ['ConfigMap/a', 'ConfigMap/b'],
      ['Aardvark/x'],
      ['Zebra/z'],
    ]);
  });

  it('puts webhook configurations first for helm 4 only, as each helm does', () => {
    const manifest = [doc('Service', 'svc'), doc('ValidatingWebhookConfiguration', 'hook')].join('');
    expect(names(planUninstall(release(manifest), { disableHooks: false, helmMajor: 4 }))).toEqual([
      ['ValidatingWebhookConfiguration/hook'],
      ['Service/svc'],
    ]);
    expect(names(planUninstall(release(manifest), { disableHooks: false, helmMajor: 3 }))).toEqual([
      ['Service/svc'],
      ['ValidatingWebhookConfiguration/hook'],
    ]);
  });

  it('leaves every object with a resource-policy annotation in place, as helm does', () => {
    const keep = '  annotations:\n    helm.sh/resource-policy: keep\n';
    const other = '  annotations:\n    helm.sh/resource-policy: whatever\n';
    const manifest = [doc('ConfigMap', 'kept', keep), doc('ConfigMap', 'odd', other), doc('ConfigMap', 'gone')].join(
      '',
    );
    const plan = planUninstall(release(manifest), { disableHooks: false, helmMajor: 3 });
    expect(names(plan)).toEqual([['ConfigMap/gone']]);
    expect(plan.inProcess && plan.kept.map((o) => o.metadata.name)).toEqual(['kept', 'odd']);
  });

  it('names each object once when the manifest repeats it', () => {
    const manifest = [doc('ConfigMap', 'a'), doc('ConfigMap', 'a')].join('');
    expect(names(planUninstall(release(manifest), { disableHooks: false, helmMajor: 3 }))).toEqual([['ConfigMap/a']]);
  });

  it('leaves a release with delete hooks to helm, unless its hooks are disabled', () => {
    const hooked = release(doc('ConfigMap', 'a'), { hookEvents: ['post-install', 'pre-delete'] });
    expect(planUninstall(hooked, { disableHooks: false, helmMajor: 3 })).toEqual({
      inProcess: false,
      reason: 'the release has delete hooks to run',
    });
    expect(names(planUninstall(hooked, { disableHooks: true, helmMajor: 3 }))).toEqual([['ConfigMap/a']]);
    const installOnly = release(doc('ConfigMap', 'a'), { hookEvents: ['post-install'] });
    expect(planUninstall(installOnly, { disableHooks: false, helmMajor: 3 }).inProcess).toBe(true);
  });

  it('tells a release with delete hooks to run from one without, or with its hooks disabled', () => {
    expect(hasDeleteHooksToRun(release('', { hookEvents: ['post-delete'] }), false)).toBe(true);
    expect(hasDeleteHooksToRun(release('', { hookEvents: ['post-delete'] }), true)).toBe(false);
    expect(hasDeleteHooksToRun(release('', { hookEvents: ['pre-install', 'test'] }), false)).toBe(false);
    expect(hasDeleteHooksToRun(release(''), false)).toBe(false);
  });

  it('leaves a manifest it cannot read to helm, which reports it', () => {
    const plan = planUninstall(release('---\nkind: [unclosed\n'), { disableHooks: false, helmMajor: 3 });
    expect(plan.inProcess).toBe(false);
  });

  it('only purges the records of a release uninstalled with its history kept', () => {
    const plan = planUninstall(release(doc('ConfigMap', 'a'), { info: { status: 'uninstalled' } }), {
      disableHooks: false,
      helmMajor: 3,
    });
    expect(plan).toEqual({ inProcess: true, waves: [], kept: [] });
  });
});
