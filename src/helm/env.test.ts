import { describe, expect, it } from 'vitest';
import { helmEnv, userHelmEnv } from './env.js';

describe('helmEnv', () => {
  const homes = { cacheHome: '/w/h/cache', configHome: '/w/h/config', dataHome: '/w/h/data', kubeCacheDir: '/w/kc' };

  it('keeps the base env but drops HELM_* variables that would retarget helm', () => {
    const env = helmEnv({
      ...homes,
      historyMax: 7,
      base: {
        PATH: '/bin',
        HELM_NAMESPACE: 'kube-system',
        HELM_KUBECONTEXT: 'prod',
        HELM_DEBUG: 'true',
        HELM_QPS: '50',
        GONE: undefined,
      },
    });
    expect(env).toEqual({
      PATH: '/bin',
      HELM_QPS: '50',
      HELM_CACHE_HOME: '/w/h/cache',
      HELM_CONFIG_HOME: '/w/h/config',
      HELM_DATA_HOME: '/w/h/data',
      HELM_DRIVER: 'secret',
      HELM_MAX_HISTORY: '7',
      KUBECACHEDIR: '/w/kc',
      NO_COLOR: '1',
    });
  });

  it('sets KUBECONFIG only when a kubeconfig is given, overriding the base env', () => {
    expect(helmEnv({ ...homes, historyMax: 1, base: { KUBECONFIG: '/base' } }).KUBECONFIG).toBe('/base');
    expect(helmEnv({ ...homes, historyMax: 1, base: { KUBECONFIG: '/base' }, kubeconfig: '/k' }).KUBECONFIG).toBe('/k');
  });
});

describe('userHelmEnv', () => {
  it("keeps the user's HELM_* settings and adds only NO_COLOR and the kubeconfig", () => {
    expect(
      userHelmEnv({
        base: { PATH: '/bin', HELM_CONFIG_HOME: '/me/helm', HELM_REGISTRY_CONFIG: '/me/r.json', GONE: undefined },
      }),
    ).toEqual({
      PATH: '/bin',
      HELM_CONFIG_HOME: '/me/helm',
      HELM_REGISTRY_CONFIG: '/me/r.json',
      NO_COLOR: '1',
    });
    expect(userHelmEnv({ base: { KUBECONFIG: '/a' }, kubeconfig: '/b' }).KUBECONFIG).toBe('/b');
  });
});
