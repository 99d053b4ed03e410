import { describe, expect, it } from 'vitest';
import { transformManifest } from '../../helm/manifest-edit.js';
import { applyOwnership } from '../../ownership/rules.js';
import { compareRendering, type OwnMarks } from './adoption-compare.js';

const OURS: OwnMarks = {
  chart: 'nginx',
  uid: 'uid-1',
  primaryResource: 'apps/web',
  primaryResourceType: 'Nginx.demo.example.com',
};

/** helm 3's rendering of a ConfigMap, a cluster-scoped ClusterRole and a Deployment, as operator-sdk stores it. */
const PLAIN = `---
# Source: nginx/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-nginx
  labels:
    app.kubernetes.io/name: nginx
data:
  index.html: "Hello"
  mode: 0644
---
# Source: nginx/templates/clusterrole.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: apps-web
rules: []
---
# Source: nginx/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-nginx
spec:
  replicas: 1
`;

/** The same manifest through this operator's post-renderer, as it stores its own releases. */
const postRendered = (manifest: string, uid = OURS.uid) =>
  transformManifest(manifest, (obj) =>
    applyOwnership(
      obj,
      {
        owner: { apiVersion: 'demo.example.com/v1alpha1', kind: 'Nginx', namespace: 'apps', name: 'web', uid },
        chart: 'nginx',
        releaseNamespace: 'apps',
      },
      (_, kind) => kind !== 'ClusterRole',
    ),
  );

describe('compareRendering', () => {
  it("finds operator-sdk's stored manifest the same as the dry run's when the text is the same", () => {
    expect(compareRendering(PLAIN, PLAIN, OURS)).toEqual({ same: true });
  });

  it('finds the same objects the same when only blank lines differ (helm 4 renders a blank line before each ---)', () => {
    const helm4 = PLAIN.replaceAll('\n---\n', '\n\n---\n');
    expect(compareRendering(PLAIN, helm4, OURS)).toEqual({ same: true });
  });

  it("sets aside this operator's own marks: a release its post-renderer rendered matches the plain rendering", () => {
    const ours = postRendered(PLAIN);
    expect(ours).toContain('helm.sdk.operatorframework.io/chart: nginx');
    expect(ours).toContain('uid: uid-1');
    expect(ours).toContain('operator-sdk/primary-resource: apps/web');
    expect(compareRendering(ours, PLAIN, OURS)).toEqual({ same: true });
  });

  it('finds a difference in the chart output and names the first object that differs, never a value', () => {
    const changed = PLAIN.replace('replicas: 1', 'replicas: 2');
    expect(compareRendering(PLAIN, changed, OURS)).toEqual({ same: false, first: 'Deployment/web-nginx' });
    const moreData = PLAIN.replace('index.html: "Hello"', 'index.html: "Hello, world"');
    expect(compareRendering(postRendered(PLAIN), moreData, OURS)).toEqual({
      same: false,
      first: 'ConfigMap/web-nginx',
    });
  });

  it('finds an object more or less a difference', () => {
    const fewer = PLAIN.slice(0, PLAIN.indexOf('---\n# Source: nginx/templates/deployment.yaml'));
    expect(compareRendering(PLAIN, fewer, OURS)).toEqual({ same: false, first: 'Deployment/web-nginx' });
  });

  it('keeps marks that are not ours: an ownerReference to another uid, a chart label of another chart', () => {
    expect(compareRendering(postRendered(PLAIN, 'uid-old'), PLAIN, OURS).same).toBe(false);
    const otherChart = PLAIN.replace(
      '    app.kubernetes.io/name: nginx',
      '    app.kubernetes.io/name: nginx\n    helm.sdk.operatorframework.io/chart: other',
    );
    expect(compareRendering(otherChart, PLAIN, OURS)).toEqual({ same: false, first: 'ConfigMap/web-nginx' });
  });

  it('reads YAML 1.1 scalars as helm does on both sides (0644 stays the same number)', () => {
    const quoted = PLAIN.replace('mode: 0644', 'mode: 420');
    expect(compareRendering(PLAIN, quoted, OURS)).toEqual({ same: true });
  });

  it('calls a manifest that cannot be read a difference', () => {
    expect(compareRendering(PLAIN, 'kind: [unclosed', OURS)).toEqual({
      same: false,
      first: 'a manifest that cannot be read',
    });
  });
});
