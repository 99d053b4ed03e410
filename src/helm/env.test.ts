import { describe, expect, it } from 'vitest';
import { HELM_CATALOGUE_LOCALE, helmEnv, userHelmEnv } from './env.js';

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
      GOGC: '200',
      GOMAXPROCS: '1',
      LC_MESSAGES: HELM_CATALOGUE_LOCALE,
    });
  });

  it("runs helm on one thread unless the operator's environment sets GOMAXPROCS", () => {
    expect(helmEnv({ ...homes, historyMax: 1, base: {} }).GOMAXPROCS).toBe('1');
    expect(helmEnv({ ...homes, historyMax: 1, base: { GOMAXPROCS: '4' } }).GOMAXPROCS).toBe('4');
  });

  it("points kubectl's message catalogue at the smallest one, whatever locale the operator runs in", () => {
    const env = helmEnv({
      ...homes,
      historyMax: 1,
      base: { LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8', LC_MESSAGES: 'de_DE.UTF-8', LC_CTYPE: 'C.UTF-8' },
    });
    expect([env.LC_ALL, env.LC_MESSAGES, env.LANG, env.LC_CTYPE]).toEqual([
      undefined,
      'zh_TW.UTF-8',
      'en_US.UTF-8',
      'C.UTF-8',
    ]);
  });

  it("runs helm with GOGC=200 unless the operator's environment sets GOGC or GOMEMLIMIT", () => {
    expect(helmEnv({ ...homes, historyMax: 1, base: {} }).GOGC).toBe('200');
    expect(helmEnv({ ...homes, historyMax: 1, base: { GOGC: 'off' } }).GOGC).toBe('off');
    const limited = helmEnv({ ...homes, historyMax: 1, base: { GOMEMLIMIT: '64MiB' } });
    expect([limited.GOGC, limited.GOMEMLIMIT]).toEqual([undefined, '64MiB']);
  });

  it('sets KUBECONFIG only when a kubeconfig is given, overriding the base env', () => {
    expect(helmEnv({ ...homes, historyMax: 1, base: { KUBECONFIG: '/base' } }).KUBECONFIG).toBe('/base');
    expect(helmEnv({ ...homes, historyMax: 1, base: { KUBECONFIG: '/base' }, kubeconfig: '/k' }).KUBECONFIG).toBe('/k');
  });

  it("gives helm the operator's API rate limit (negative: none) unless the base env sets helm's own", () => {
    const none = helmEnv({ ...homes, historyMax: 1, base: {}, rateLimit: { qps: -1 } });
    expect([none.HELM_QPS, none.HELM_BURST_LIMIT]).toEqual(['-1', undefined]);
    const limited = helmEnv({ ...homes, historyMax: 1, base: {}, rateLimit: { qps: 20, burst: 30 } });
    expect([limited.HELM_QPS, limited.HELM_BURST_LIMIT]).toEqual(['20', '30']);
    const own = helmEnv({ ...homes, historyMax: 1, base: { HELM_BURST_LIMIT: '200' }, rateLimit: { qps: -1 } });
    expect([own.HELM_QPS, own.HELM_BURST_LIMIT]).toEqual([undefined, '200']);
    expect(helmEnv({ ...homes, historyMax: 1, base: {} }).HELM_QPS).toBeUndefined();
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
