import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { loadKubeconfigFiles, mergeKubeconfigs, parseKubeconfig, selectContext } from './kubeconfig.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const FULL = `
apiVersion: v1
kind: Config
current-context: main
clusters:
- name: c
  cluster:
    server: https://kube.example:6443/prefix
    certificate-authority: pki/ca.crt
    insecure-skip-tls-verify: yes
    tls-server-name: kube.internal
    proxy-url: http://proxy.example:3128
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: x}
- name: d
  cluster:
    server: https://d.example
    certificate-authority-data: Q0E=
users:
- name: u
  user:
    token: 0123
    tokenFile: tokens/t
    client-certificate: /abs/client.crt
    client-key: ../client.key
    username: admin
    password: "true"
    as: someone
    as-uid: "42"
    as-groups: [ops]
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/plugin
      args: [get, "--x=1"]
      env: [{name: A, value: b}]
      installHint: install it
      provideClusterInfo: true
      interactiveMode: Never
- name: legacy
  user:
    token-file: legacy-token
    auth-provider: {name: oidc, config: {id-token: secret}}
- name: onpath
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws}
contexts:
- name: main
  context: {cluster: c, user: u, namespace: ns}
- name: anonymous
  context: {cluster: d}
`;

describe('parseKubeconfig', () => {
  it('reads every supported cluster and user field, keeping scalars as strings', () => {
    const cfg = parseKubeconfig(FULL, join(dir, 'sub', 'config'));
    expect(cfg.currentContext).toBe('main');
    expect(cfg.clusters.get('c')).toEqual({
      name: 'c',
      server: 'https://kube.example:6443/prefix',
      caFile: join(dir, 'sub', 'pki', 'ca.crt'),
      insecureSkipTlsVerify: true,
      tlsServerName: 'kube.internal',
      proxyUrl: 'http://proxy.example:3128',
      execExtension: { audience: 'x' },
    });
    expect(cfg.clusters.get('d')).toMatchObject({ caData: 'Q0E=', insecureSkipTlsVerify: false });
    expect(cfg.users.get('u')).toEqual({
      name: 'u',
      token: '0123',
      tokenFile: join(dir, 'sub', 'tokens', 't'),
      certFile: '/abs/client.crt',
      keyFile: join(dir, 'client.key'),
      username: 'admin',
      password: 'true',
      impersonate: { user: 'someone', uid: '42', groups: ['ops'] },
      impersonateExtra: false,
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: join(dir, 'sub', 'bin', 'plugin'),
        args: ['get', '--x=1'],
        env: [{ name: 'A', value: 'b' }],
        installHint: 'install it',
        provideClusterInfo: true,
        interactiveMode: 'Never',
      },
    });
    expect(cfg.users.get('legacy')).toMatchObject({
      tokenFile: join(dir, 'sub', 'legacy-token'),
      authProvider: 'oidc',
    });
    // A bare command is looked up on PATH, not resolved against the file.
    expect(cfg.users.get('onpath')?.exec?.command).toBe('aws');
    expect(cfg.contexts.get('anonymous')).toEqual({ name: 'anonymous', cluster: 'd' });
  });

  it('accepts JSON and empty files', () => {
    const cfg = parseKubeconfig('{"clusters": [{"name": "j", "cluster": {"server": "https://j"}}]}', '/x/config');
    expect(cfg.clusters.get('j')?.server).toBe('https://j');
    expect(parseKubeconfig('', '/x/config').contexts.size).toBe(0);
  });

  it('reports YAML errors by position only, never quoting the file (it may hold credentials)', () => {
    const err = (() => {
      try {
        parseKubeconfig('users:\n- name: u\n  user: { token: s3cr3t-value\n', '/x/config');
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.message).toMatch(/\/x\/config .*not valid YAML \(line \d+, column \d+\)/);
    expect(err?.message).not.toContain('s3cr3t');
    expect(err?.cause).toBeUndefined();
    expect(() => parseKubeconfig('- a\n- b\n', '/x/config')).toThrow(/not a YAML mapping/);
    expect(() => parseKubeconfig('users:\n- user: {token: s3cr3t}\n', '/x/config')).toThrow(/users\[0\].*no name/);
  });
});

describe('mergeKubeconfigs and loadKubeconfigFiles', () => {
  it('keeps the first definition of each name and the first current-context, with paths of their own file', () => {
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    const a = join(dir, 'a', 'config');
    const b = join(dir, 'b', 'config');
    writeFileSync(a, 'clusters:\n- name: one\n  cluster: {server: https://a, certificate-authority: ca.crt}\n');
    writeFileSync(
      b,
      'current-context: two\nclusters:\n- name: one\n  cluster: {server: https://b}\n' +
        '- name: two\n  cluster: {server: https://b2, certificate-authority: ca.crt}\n' +
        'contexts:\n- name: two\n  context: {cluster: two}\n',
    );
    const merged = loadKubeconfigFiles([a, b], 'KUBECONFIG');
    expect(merged.clusters.get('one')).toMatchObject({ server: 'https://a', caFile: join(dir, 'a', 'ca.crt') });
    expect(merged.clusters.get('two')).toMatchObject({ server: 'https://b2', caFile: join(dir, 'b', 'ca.crt') });
    expect(merged.currentContext).toBe('two');
    const first = parseKubeconfig('current-context: x\n', '/c1');
    expect(
      mergeKubeconfigs([parseKubeconfig('', '/c0'), first, parseKubeconfig('current-context: y', '/c2')]),
    ).toMatchObject({ currentContext: 'x' });
  });

  it('names the unreadable file without its content', () => {
    expect(() => loadKubeconfigFiles([join(dir, 'missing')], 'KUBECONFIG')).toThrow(
      /cannot read the kubeconfig file .*missing \(from KUBECONFIG\)/,
    );
  });
});

describe('selectContext', () => {
  const cfg = parseKubeconfig(
    `${FULL}\n- name: nocluster\n  context: {cluster: gone}\n- name: nouser\n  context: {cluster: d, user: gone}\n`,
    '/k/config',
  );

  it('selects the current context or the override, with its cluster, user and namespace', () => {
    expect(selectContext(cfg, 'KUBECONFIG')).toMatchObject({
      context: 'main',
      cluster: { name: 'c' },
      user: { name: 'u' },
      namespace: 'ns',
    });
    const anonymous = selectContext(cfg, 'KUBECONFIG', 'anonymous');
    expect(anonymous.user).toBeUndefined();
    expect(anonymous.namespace).toBeUndefined();
  });

  it('fails with a ConfigError naming what is missing', () => {
    expect(() => selectContext(cfg, 'KUBECONFIG', 'other')).toThrow(/context "other" does not exist/);
    expect(() => selectContext(cfg, 'KUBECONFIG', 'nocluster')).toThrow(/no cluster for context "nocluster"/);
    expect(() => selectContext(cfg, 'KUBECONFIG', 'nouser')).toThrow(/user "gone" of context nouser not found/);
    expect(() => selectContext(parseKubeconfig('', '/e'), 'home')).toThrow(/no current-context/);
    const noServer = parseKubeconfig(
      'current-context: x\nclusters: [{name: c, cluster: {}}]\ncontexts: [{name: x, context: {cluster: c}}]',
      '/e',
    );
    expect(() => selectContext(noServer, 'home')).toThrow(/cluster c has no server/);
  });
});
