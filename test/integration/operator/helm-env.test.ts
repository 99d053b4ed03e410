// The Go runtime settings of the operator's helm children, against the real control plane and the real helm: helm
// runs with GOGC=200 (less CPU on garbage collection for a short-lived process) unless the operator's own
// environment sets GOGC or GOMEMLIMIT, which then reach helm as they are; GOMAXPROCS=1 unless it is set; and always
// with the smallest message catalogue (LC_MESSAGES, LC_ALL not passed on).
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POLL, useOperatorFixture } from '../../support/operator-fixture.js';

/** helm runs as a wrapper that logs each process's subcommand and the two variables, then the real helm. */
const WRAPPER = `#!/bin/sh
echo "$1 GOGC=\${GOGC-unset} GOMEMLIMIT=\${GOMEMLIMIT-unset} GOMAXPROCS=\${GOMAXPROCS-unset} LC_ALL=\${LC_ALL-unset} LC_MESSAGES=\${LC_MESSAGES-unset}" >>"$ENV_TEST_LOG"
exec "$COUNTING_HELM_REAL" "$@"
`;

const cases = [
  ['by default', {}, 'GOGC=200 GOMEMLIMIT=unset GOMAXPROCS=1 LC_ALL=unset LC_MESSAGES=zh_TW.UTF-8'],
  [
    'with GOGC=50, GOMAXPROCS=2 and LC_ALL=C.UTF-8 in the operator’s environment',
    { GOGC: '50', GOMAXPROCS: '2', LC_ALL: 'C.UTF-8' },
    'GOGC=50 GOMEMLIMIT=unset GOMAXPROCS=2 LC_ALL=unset LC_MESSAGES=zh_TW.UTF-8',
  ],
  [
    'with GOMEMLIMIT=200MiB in the operator’s environment',
    { GOMEMLIMIT: '200MiB' },
    'GOGC=unset GOMEMLIMIT=200MiB GOMAXPROCS=1 LC_ALL=unset LC_MESSAGES=zh_TW.UTF-8',
  ],
] as const;

describe.each(cases)('the helm children of the operator %s', (_, env, expected) => {
  const dir = mkdtempSync(join(tmpdir(), 'helm-env-'));
  const log = join(dir, 'helm.log');
  const wrapper = join(dir, 'helm');
  writeFileSync(wrapper, WRAPPER);
  chmodSync(wrapper, 0o755);
  writeFileSync(log, '');

  const f = useOperatorFixture({
    namespaces: ['op-helm-env'],
    // The uninstall goes to helm too (a release without delete hooks is otherwise uninstalled in-process).
    operator: () => ({
      args: ['--in-process-uninstall=false'],
      env: { ...env, HELM_BINARY: wrapper, ENV_TEST_LOG: log },
    }),
  });
  f.onFinalCleanup(async () => rmSync(dir, { recursive: true, force: true }));

  it(`run with ${expected}, install and uninstall alike`, async () => {
    await f.create('web', { replicaCount: 1 });
    await expect.poll(async () => (await f.crs.condition('web', 'Deployed'))?.status, POLL).toBe('True');
    await f.crs.delete('web');
    await expect.poll(() => readFileSync(log, 'utf8').includes('uninstall '), POLL).toBe(true);
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(lines.filter((l) => /^(install|uninstall) /.test(l))).toEqual([
      `install ${expected}`,
      `uninstall ${expected}`,
    ]);
    expect(lines.every((l) => l.endsWith(expected))).toBe(true); // version and the warm-up's template too
  });
});
