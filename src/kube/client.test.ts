import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { ConfigError } from '../core/errors.js';
import { selfSignedCertificate } from '../server/selfsigned.js';
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
  writeFileSync(join(sa, 'ca.crt'), '-----BEGIN CERTIFICATE-----\nnot really a certificate\n');
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

describe('createKubeClient against a local HTTPS API server', () => {
  const pem = selfSignedCertificate({ dnsNames: ['kube.test'], ipAddresses: ['127.0.0.1'] });
  const signal = new AbortController().signal;

  /** Serves /version; records each request's Authorization header and the socket it came on. */
  async function apiServer(fn: (port: number, seen: { auth?: string; socket: unknown }[]) => Promise<void>) {
    const seen: { auth?: string; socket: unknown }[] = [];
    const server = https.createServer({ cert: pem.cert, key: pem.key }, (req, res) => {
      seen.push({ ...(req.headers.authorization ? { auth: req.headers.authorization } : {}), socket: req.socket });
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ major: '1', minor: '36', gitVersion: 'v1.36.0' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await fn((server.address() as AddressInfo).port, seen);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }

  it('in a pod: trusts the service-account CA, re-reads the rotated token every minute, keeps the connection', () =>
    apiServer(async (port, seen) => {
      const sa = serviceAccount();
      writeFileSync(join(sa, 'ca.crt'), pem.cert);
      const clock = new FakeClock();
      const env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(port) };
      const { client } = createKubeClient({ env, serviceAccountDir: sa, clock });
      await client.serverVersion({ signal });
      writeFileSync(join(sa, 'token'), 'rotated-token');
      await client.serverVersion({ signal });
      clock.advance(60_000);
      await client.serverVersion({ signal });
      expect(seen.map((r) => r.auth)).toEqual(['Bearer pod-token', 'Bearer pod-token', 'Bearer rotated-token']);
      expect(new Set(seen.map((r) => r.socket)).size).toBe(1);
    }));

  it('from a kubeconfig: a CA file relative to the kubeconfig, tls-server-name, and an exec plugin token', () =>
    apiServer(async (port, seen) => {
      mkdirSync(join(dir, 'conf', 'bin'), { recursive: true });
      writeFileSync(join(dir, 'conf', 'ca.pem'), pem.cert);
      const plugin = join(dir, 'conf', 'bin', 'token.sh');
      writeFileSync(
        plugin,
        `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-exec"}}'\n`,
      );
      chmodSync(plugin, 0o755);
      const config = join(dir, 'conf', 'config');
      writeFileSync(
        config,
        `clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:${port}\n    certificate-authority: ca.pem\n` +
          '    tls-server-name: kube.test\nusers:\n- name: u\n  user:\n    exec:\n' +
          '      apiVersion: client.authentication.k8s.io/v1\n      command: ./bin/token.sh\n      interactiveMode: Never\n' +
          'contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n',
      );
      const { client } = createKubeClient({ env: { PATH: '/usr/bin:/bin' }, kubeconfigPath: config });
      expect((await client.serverVersion({ signal })).gitVersion).toBe('v1.36.0');
      expect(seen.map((r) => r.auth)).toEqual(['Bearer from-exec']);
    }));

  it('refuses an auth-provider user at start, naming the exec plugin alternative', () => {
    const config = join(dir, 'ap');
    writeFileSync(
      config,
      'clusters: [{name: c, cluster: {server: "https://k"}}]\n' +
        'users: [{name: u, user: {auth-provider: {name: oidc, config: {id-token: s3cr3t}}}}]\n' +
        'contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
    );
    const err = (() => {
      try {
        createKubeClient({ env: {}, kubeconfigPath: config });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.message).toMatch(/auth-provider "oidc".*not supported: use an exec credential plugin/);
    expect(err?.message).not.toContain('s3cr3t');
  });
});
