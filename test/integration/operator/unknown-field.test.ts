// Unknown fields, against the real control plane and the real helm: by default helm runs with
// --disable-openapi-validation, and a chart object with a field the API server does not know still installs with
// helm 3 (the server drops the field and warns) while the CR gets an UnknownField Warning naming the object and the
// field; helm 4's server-side apply refuses such an object, so the install fails as it always did. With
// --helm-openapi-validation helm validates client-side again (no --disable-openapi-validation), with the same outcome.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ROOT } from '../../support/operator.js';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';

const CHART = `${ROOT}/test/fixtures/charts/unknown-field`;
const helms = Object.entries(inject('cluster').helms);
const modes = [
  ['by default', [] as string[]],
  ['with --helm-openapi-validation', ['--helm-openapi-validation']],
] as const;

/** A helm wrapper that logs `<command> validation=on|off` for install and upgrade, then runs the real helm. */
function validationLoggingHelm(real: string): { path: string; calls: () => string[]; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'unknown-field-helm-'));
  const log = join(dir, 'calls.log');
  const path = join(dir, 'helm');
  writeFileSync(log, '');
  writeFileSync(
    path,
    `#!/usr/bin/env bash
case "\${1:-}" in install|upgrade)
  v=on; for a in "$@"; do [ "$a" = --disable-openapi-validation ] && v=off; done
  echo "$1 validation=$v" >>'${log}' ;;
esac
exec '${real}' "$@"
`,
  );
  chmodSync(path, 0o755);
  return {
    path,
    calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe.each(helms)(
  'the operator with %s, for a chart object with a field the API server does not know',
  (_, real) => {
    const major = Number(/^v(\d+)\./.exec(execFileSync(real, ['version', '--short'], { encoding: 'utf8' }))?.[1]);

    describe.each(modes)('%s', (mode, args) => {
      const helm = validationLoggingHelm(real);
      afterAll(() => helm.remove());
      const f = useOperatorFixture({
        kinds: [{ kind: 'UnknownField', chart: CHART }],
        namespaces: ['op-uf'],
        helm: helm.path,
        operator: () => ({ args }),
      });
      const validation = mode === 'by default' ? 'off' : 'on';

      /** The UnknownField events on the CR, their messages. */
      const unknownFieldEvents = async (name: string) => {
        const list = await f.kube.core.listNamespacedEvent({
          namespace: f.ns,
          fieldSelector: `involvedObject.name=${name}`,
        });
        return list.items.filter((e) => e.reason === 'UnknownField').map((e) => `${e.type}: ${e.message}`);
      };

      if (major < 4) {
        it('installs, drops the field, and records an UnknownField Warning naming the object and the field', async () => {
          await f.create('web', {});
          await expect.poll(async () => (await f.crs.condition('web', 'Deployed'))?.status, POLL).toBe('True');
          await expect
            .poll(() => unknownFieldEvents('web'), POLL)
            .toEqual([
              'Warning: The API server ignored unknown field "spec.notAField" of Service/web-svc of release web',
            ]);
          const svc = await f.kube.core.readNamespacedService({ name: 'web-svc', namespace: f.ns });
          expect(svc.spec?.ports?.[0]?.port).toBe(80);
          expect(svc.spec).not.toHaveProperty('notAField');
          expect(helm.calls()).toEqual([`install validation=${validation}`]);
        });

        it('records the unknown field of an upgrade too', async () => {
          await f.crs.setSpec('web', { field: 'bogus' });
          await expect
            .poll(() => unknownFieldEvents('web'), POLL)
            .toContain('Warning: The API server ignored unknown field "spec.bogus" of Service/web-svc of release web');
          await expect
            .poll(async () => (await f.crs.get('web')).status?.deployedRelease?.revision, POLL)
            .toBeGreaterThanOrEqual(2);
          expect(helm.calls()).toContain(`upgrade validation=${validation}`);
          expect(helm.calls().every((c) => c.endsWith(`validation=${validation}`))).toBe(true);
        });
      } else {
        it('fails the install with the server-side apply error, as it always did, and records no UnknownField', async () => {
          await f.create('web', {});
          await expect
            .poll(async () => (await f.crs.condition('web', 'ReleaseFailed'))?.reason, POLL)
            .toBe('InstallError');
          expect((await f.crs.condition('web', 'ReleaseFailed'))?.message).toMatch(/notAField: field not declared/);
          expect(await unknownFieldEvents('web')).toEqual([]);
          expect(helm.calls()[0]).toBe(`install validation=${validation}`);
        });
      }
    });
  },
);
