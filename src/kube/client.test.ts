import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { createKubeClient } from './client.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kube-client-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a kubeconfig with one cluster/user/context per name; the first is current unless `current` is given. */
function kubeconfig(file: string, names: string[], current = names[0]): string {
  const path = join(dir, file);
  const clusters = names.map((n) => `- name: ${n}\n  cluster:\n    server: https://${n}.example:6443`).join('\n');
  const users = names.map((n) => `- name: ${n}\n  user:\n    token: t-${n}`).join('\n');
  const contexts = names
    .map((n) => `- name: ${n}\n  context:\n    cluster: ${n}\n    user: ${n}\n    namespace: ns-${n}`)
    .join('\n');
  writeFileSync(
    path,
    `apiVersion: v1\nkind: Config\nclusters:\n${clusters}\nusers:\n${users}\ncontexts:\n${contexts}\ncurrent-context: ${current}\n`,
  );
  return path;
}

function serviceAccount(): string {
  const sa = join(dir, 'sa');
  mkdirSync(sa);
  writeFileSync(join(sa, 'token'), 'pod-token');
  writeFileSync(join(sa, 'ca.crt'), 'not really a certificate');
  writeFileSync(join(sa, 'namespace'), 'operator-system\n');
  return sa;
}

describe('createKubeClient', () => {
  it('prefers an explicit kubeconfig path over KUBECONFIG', () => {
    const explicit = kubeconfig('explicit', ['one']);
    const env = { KUBECONFIG: kubeconfig('env', ['two']) };
    expect(createKubeClient({ env, kubeconfigPath: explicit }).describe()).toEqual({
      server: 'https://one.example:6443',
      context: 'one',
      source: 'explicit',
      namespace: 'ns-one',
    });
  });

  it('merges KUBECONFIG files like kubectl: missing files are skipped and the first definition wins', () => {
    const first = kubeconfig('a', ['one']);
    const second = kubeconfig('b', ['one', 'two'], 'two');
    const env = { KUBECONFIG: [join(dir, 'missing'), first, second].join(':') };
    expect(createKubeClient({ env }).describe()).toMatchObject({ context: 'one', source: 'KUBECONFIG' });
    expect(createKubeClient({ env, context: 'two' }).describe()).toMatchObject({ server: 'https://two.example:6443' });
  });

  it('uses the pod service account when KUBERNETES_SERVICE_HOST is set and KUBECONFIG is not', () => {
    const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443', HOME: dir };
    kubeconfig('unused', ['home']);
    expect(createKubeClient({ env, serviceAccountDir: serviceAccount() }).describe()).toEqual({
      server: 'https://[fd00::1]',
      context: 'in-cluster',
      source: 'in-cluster',
      namespace: 'operator-system',
    });
  });

  it('falls back to ~/.kube/config from the HOME it is given', () => {
    mkdirSync(join(dir, '.kube'));
    kubeconfig('.kube/config', ['home']);
    expect(createKubeClient({ env: { HOME: dir } }).describe()).toMatchObject({ source: 'home', context: 'home' });
  });

  it('fails with a ConfigError when there is no configuration, a bad context, or an unreadable file', () => {
    expect(() => createKubeClient({ env: { HOME: dir } })).toThrow(ConfigError);
    expect(() => createKubeClient({ env: { KUBECONFIG: join(dir, 'nope') } })).toThrow(/none of the files/);
    const file = kubeconfig('a', ['one']);
    expect(() => createKubeClient({ env: { KUBECONFIG: file }, context: 'other' })).toThrow(/context "other"/);
    writeFileSync(join(dir, 'broken'), 'clusters: [ {');
    expect(() => createKubeClient({ env: { KUBECONFIG: join(dir, 'broken') } })).toThrow(ConfigError);
    expect(() => createKubeClient({ env: { KUBERNETES_SERVICE_HOST: '10.0.0.1' }, serviceAccountDir: dir })).toThrow(
      /token/,
    );
  });
});
