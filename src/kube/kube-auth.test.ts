import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { ConfigError } from '../core/errors.js';
import { createKubeAuth, REFRESH_EVERY_MS } from './kube-auth.js';
import type { KubeCluster, KubeUser, SelectedConfig } from './kubeconfig.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kube-auth-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const b64 = (s: string) => Buffer.from(s).toString('base64');
/** Fake TLS material with the PEM BEGIN line the startup check looks for. */
const CERT = (s: string) => `-----BEGIN CERTIFICATE-----${s}`;
const KEY = (s: string) => `-----BEGIN PRIVATE KEY-----${s}`;
const cluster = (more: Partial<KubeCluster> = {}): KubeCluster => ({
  name: 'c',
  server: 'https://kube.example',
  insecureSkipTlsVerify: false,
  ...more,
});
const selected = (user?: Partial<KubeUser>, c: Partial<KubeCluster> = {}): SelectedConfig => ({
  context: 'x',
  cluster: cluster(c),
  ...(user ? { user: { name: 'u', impersonateExtra: false, ...user } } : {}),
});

describe('createKubeAuth', () => {
  it('gives TLS material from inline data (which wins over files) or files, and no headers without a user', async () => {
    const clock = new FakeClock();
    const anonymous = createKubeAuth(selected(undefined, { caFile: file('ca', CERT('CA-FILE')), tlsServerName: 'n' }), {
      env: {},
      clock,
    });
    expect(await anonymous()).toEqual({
      headers: {},
      tls: { rejectUnauthorized: true, servername: 'n', ca: Buffer.from(CERT('CA-FILE')) },
    });
    const auth = createKubeAuth(
      selected(
        {
          certData: b64(CERT('CERT-DATA')),
          certFile: file('crt', CERT('CERT-FILE')),
          keyFile: file('key', KEY('KEY-FILE')),
        },
        { caData: b64(CERT('CA-DATA')), caFile: file('ca2', CERT('CA-FILE')), insecureSkipTlsVerify: true },
      ),
      { env: {}, clock },
    );
    expect((await auth()).tls).toEqual({
      rejectUnauthorized: false,
      ca: Buffer.from(CERT('CA-DATA')),
      cert: Buffer.from(CERT('CERT-DATA')),
      key: Buffer.from(KEY('KEY-FILE')),
    });
  });

  it('re-reads the token file once a minute, keeping the last good token while the file is unreadable', async () => {
    const clock = new FakeClock();
    const tokenFile = file('token', 'first\n');
    const auth = createKubeAuth(selected({ tokenFile }), { env: {}, clock });
    expect((await auth()).headers).toEqual({ Authorization: 'Bearer first' });
    writeFileSync(tokenFile, 'second');
    clock.advance(59_999);
    expect((await auth()).headers.Authorization).toBe('Bearer first');
    clock.advance(1);
    expect((await auth()).headers.Authorization).toBe('Bearer second');
    rmSync(tokenFile);
    clock.advance(60_000);
    expect((await auth()).headers.Authorization).toBe('Bearer second');
  });

  it('re-reads the token file at once after a 401 (refresh), at most once a second', async () => {
    const clock = new FakeClock();
    const tokenFile = file('token', 'revoked');
    const auth = createKubeAuth(selected({ tokenFile }), { env: {}, clock });
    expect((await auth()).headers.Authorization).toBe('Bearer revoked');
    writeFileSync(tokenFile, 'fresh');
    clock.advance(5_000); // long before the minute's re-read
    expect(auth.refresh()).toBe(true);
    expect((await auth()).headers.Authorization).toBe('Bearer fresh');
    writeFileSync(tokenFile, 'fresher');
    clock.advance(REFRESH_EVERY_MS - 1);
    expect(auth.refresh()).toBe(false); // a token refused again within the second is not re-read in a loop
    expect((await auth()).headers.Authorization).toBe('Bearer fresh');
    clock.advance(1);
    const before = auth.generation();
    expect(auth.refresh()).toBe(true);
    expect(auth.generation()).toBe(before + 1); // requests prepared before it are sent again without a re-read
    expect((await auth()).headers.Authorization).toBe('Bearer fresher');
  });

  it('prefers a readable token file over a static token, which is the fallback', async () => {
    const clock = new FakeClock();
    const fromFile = createKubeAuth(selected({ token: 'static', tokenFile: file('t', 'filed') }), { env: {}, clock });
    expect((await fromFile()).headers.Authorization).toBe('Bearer filed');
    const fallback = createKubeAuth(selected({ token: 'static', tokenFile: join(dir, 'gone') }), { env: {}, clock });
    expect((await fallback()).headers.Authorization).toBe('Bearer static');
  });

  it('uses basic auth without a token, and adds impersonation headers', async () => {
    const auth = createKubeAuth(
      selected({ username: 'admin', password: 'pw', impersonate: { user: 'jane', uid: '7', groups: ['ops'] } }),
      { env: {}, clock: new FakeClock() },
    );
    expect((await auth()).headers).toEqual({
      Authorization: `Basic ${b64('admin:pw')}`,
      'Impersonate-User': 'jane',
      'Impersonate-Uid': '7',
      'Impersonate-Group': 'ops',
    });
  });

  it('takes the token and client certificate of an exec plugin', async () => {
    const plugin = file(
      'plugin.sh',
      `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"exec-tok","clientCertificateData":"PEM-CERT","clientKeyData":"PEM-KEY"}}'\n`,
    );
    const exec = { apiVersion: 'client.authentication.k8s.io/v1', command: '/bin/sh', args: [plugin] };
    const auth = createKubeAuth(
      selected(
        { exec: { ...exec, env: [], provideClusterInfo: false }, certData: b64(CERT('C')), keyData: b64(KEY('K')) },
        { caData: b64(CERT('CA')) },
      ),
      { env: {}, clock: new FakeClock(), execStderr: 'ignore' },
    );
    expect(await auth()).toEqual({
      headers: { Authorization: 'Bearer exec-tok' },
      tls: { rejectUnauthorized: true, ca: Buffer.from(CERT('CA')), cert: 'PEM-CERT', key: 'PEM-KEY' },
    });
  });

  it('refuses what it cannot use with a ConfigError that names no secret', () => {
    const clock = new FakeClock();
    const make =
      (user: Partial<KubeUser>, c: Partial<KubeCluster> = {}) =>
      () =>
        createKubeAuth(selected(user, c), { env: {}, clock });
    expect(make({ authProvider: 'gcp', token: 's3cr3t' })).toThrow(
      /auth-provider "gcp".*use an exec credential plugin/,
    );
    expect(make({ certData: b64('s3cr3t') })).toThrow(/client certificate or key without the other/);
    expect(make({ impersonate: { groups: ['a', 'b'] } })).toThrow(/as-groups/);
    expect(make({ impersonateExtra: true })).toThrow(/as-user-extra/);
    expect(make({ tokenFile: join(dir, 'gone') })).toThrow(/cannot read the token file of kubeconfig user u/);
    expect(make({}, { caFile: join(dir, 'gone') })).toThrow(/cannot read the CA of cluster c/);
    // TLS material without its PEM block fails at startup naming the field, not later as "unable to verify".
    expect(make({}, { caData: b64('s3cr3t') })).toThrow(
      /the CA of kubeconfig cluster c \(certificate-authority\[-data\]\) holds no PEM certificate/,
    );
    expect(make({}, { caFile: file('ca-text', 's3cr3t') })).toThrow(/holds no PEM certificate/);
    expect(make({ certData: b64('s3cr3t'), keyData: b64(KEY('k')) })).toThrow(
      /the client certificate of kubeconfig user u \(client-certificate\[-data\]\) holds no PEM certificate/,
    );
    expect(make({ certData: b64(CERT('c')), keyData: b64('s3cr3t') })).toThrow(
      /client-key\[-data\]\) holds no PEM private key/,
    );
    for (const f of [
      make({ authProvider: 'gcp', token: 's3cr3t' }),
      make({ certData: b64('s3cr3t') }),
      make({}, { caData: b64('s3cr3t') }),
      make({ certData: b64('s3cr3t'), keyData: b64(KEY('k')) }),
    ]) {
      try {
        f();
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        expect(String(err)).not.toContain('s3cr3t');
      }
    }
  });
});
