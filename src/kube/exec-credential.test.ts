import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { ConfigError } from '../core/errors.js';
import { createExecCredentialSource, type ExecCredentialOptions } from './exec-credential.js';
import type { ExecConfig } from './kubeconfig.js';

const V1 = 'client.authentication.k8s.io/v1';
let dir: string;
let plugin: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'exec-credential-'));
  // Counts its runs, records its input and environment, prints out.json and exits with the code in exit.
  plugin = join(dir, 'plugin.sh');
  writeFileSync(
    plugin,
    `#!/bin/sh\necho run >> "${dir}/runs"\nprintf '%s' "$KUBERNETES_EXEC_INFO" > "${dir}/info"\n` +
      `printf '%s %s %s' "$1" "$A" "$INHERITED" > "${dir}/seen"\ncat "${dir}/out.json"\n` +
      `exit "$(cat "${dir}/exit" 2>/dev/null || echo 0)"\n`,
  );
  chmodSync(plugin, 0o755);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const runs = () => readFileSync(join(dir, 'runs'), 'utf8').split('\n').filter(Boolean).length;
const output = (status: object, apiVersion = V1) =>
  writeFileSync(join(dir, 'out.json'), JSON.stringify({ apiVersion, kind: 'ExecCredential', status }));

function source(exec: Partial<ExecConfig> = {}, more: Partial<ExecCredentialOptions> = {}) {
  const clock = new FakeClock({ nowMs: Date.parse('2030-01-01T00:00:00Z') });
  const get = createExecCredentialSource({
    exec: {
      apiVersion: V1,
      command: plugin,
      args: ['arg1'],
      env: [{ name: 'A', value: 'b' }],
      provideClusterInfo: false,
      ...exec,
    },
    user: 'me',
    env: { INHERITED: 'yes', PATH: '/usr/bin:/bin' },
    cluster: { server: 'https://kube.example', 'certificate-authority-data': 'Q0E=' },
    clock,
    stderr: 'ignore',
    ...more,
  });
  return { get, clock };
}

describe('createExecCredentialSource', () => {
  it('runs the plugin with its args, env and ExecCredential input, and caches the token until it expires', async () => {
    output({ token: 'tok-1', expirationTimestamp: '2030-01-01T00:10:00Z' });
    const { get, clock } = source();
    expect(await get()).toEqual({ token: 'tok-1' });
    expect(readFileSync(join(dir, 'seen'), 'utf8')).toBe('arg1 b yes');
    expect(JSON.parse(readFileSync(join(dir, 'info'), 'utf8'))).toEqual({
      apiVersion: V1,
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
    clock.advance(9 * 60_000);
    expect(await get()).toEqual({ token: 'tok-1' });
    expect(runs()).toBe(1);

    output({ token: 'tok-2', expirationTimestamp: '2030-01-01T00:20:00Z' });
    clock.advance(60_000); // now exactly the expiry: run again
    expect(await get()).toEqual({ token: 'tok-2' });
    expect(runs()).toBe(2);
  });

  it('runs the plugin again after invalidate() (the API server refused its credential), not before', async () => {
    output({ token: 'tok-1' });
    const { get } = source();
    expect(await get()).toEqual({ token: 'tok-1' });
    output({ token: 'tok-2' });
    expect(await get()).toEqual({ token: 'tok-1' });
    get.invalidate();
    expect(await get()).toEqual({ token: 'tok-2' });
    expect(runs()).toBe(2);
  });

  it('runs once for concurrent callers, and keeps a credential without expiry', async () => {
    output({ clientCertificateData: 'CERT', clientKeyData: 'KEY' });
    const { get, clock } = source();
    const all = await Promise.all([get(), get(), get()]);
    expect(all).toEqual(Array(3).fill({ clientCertificateData: 'CERT', clientKeyData: 'KEY' }));
    clock.advance(365 * 24 * 3_600_000);
    await get();
    expect(runs()).toBe(1);
  });

  it('sends the cluster with provideClusterInfo', async () => {
    output({ token: 't' });
    await source({ provideClusterInfo: true, apiVersion: 'client.authentication.k8s.io/v1beta1' })
      .get()
      .catch(() => {});
    expect(JSON.parse(readFileSync(join(dir, 'info'), 'utf8')).spec).toEqual({
      interactive: false,
      cluster: { server: 'https://kube.example', 'certificate-authority-data': 'Q0E=' },
    });
  });

  it('rejects bad output without quoting it, and retries after a failure', async () => {
    const bad: [object | string, RegExp][] = [
      ['{"token": "s3cr3t" oops', /printed no valid JSON/],
      [
        { apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token: 's3cr3t' } },
        /no ExecCredential of apiVersion client.authentication.k8s.io\/v1$/,
      ],
      [{ apiVersion: V1, kind: 'ExecCredential', status: { clientKeyData: 's3cr3t' } }, /only one of/],
      [{ apiVersion: V1, kind: 'ExecCredential', status: {} }, /neither a token nor a client certificate/],
      [
        { apiVersion: V1, kind: 'ExecCredential', status: { token: 's3cr3t', expirationTimestamp: 'soon' } },
        /invalid expirationTimestamp/,
      ],
    ];
    const { get } = source();
    for (const [out, message] of bad) {
      writeFileSync(join(dir, 'out.json'), typeof out === 'string' ? out : JSON.stringify(out));
      const err = await get().catch((e: Error) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toContain('s3cr3t');
    }
    expect(runs()).toBe(bad.length);
  });

  it('reports a failing plugin by exit code, and a missing one with its installHint', async () => {
    output({ token: 's3cr3t' });
    writeFileSync(join(dir, 'exit'), '3');
    const err = await source()
      .get()
      .catch((e: Error) => e);
    expect((err as Error).message).toMatch(/exec plugin .*plugin\.sh of kubeconfig user me failed \(exit code 3\)/);
    expect((err as Error).message).not.toContain('s3cr3t');
    const missing = source({ command: join(dir, 'nope'), installHint: 'get it from example.com' });
    await expect(missing.get()).rejects.toThrow(/cannot run .*nope.*: ENOENT\nget it from example\.com/);
  });

  it('refuses unsupported apiVersions and interactive plugins when created', () => {
    expect(() => source({ apiVersion: 'client.authentication.k8s.io/v1alpha1' })).toThrow(/not supported/);
    expect(() => source({ interactiveMode: 'Always' })).toThrow(/needs a terminal/);
  });
});
