import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeTooOld } from './node-version.js';

describe('nodeTooOld', () => {
  it.each(['20.20.2', 'v20.0.0', '22.18.9', '18.19.0'])(
    'refuses Node %s, naming the minimum and what was found',
    (v) => {
      const message = nodeTooOld(v);
      expect(message).toContain('needs Node >= 22.19');
      expect(message).toContain(`found v${v.replace(/^v/, '')}`);
    },
  );

  it.each(['22.19.0', '22.22.1', '24.0.0', 'v25.1.0'])('accepts Node %s', (v) => {
    expect(nodeTooOld(v)).toBeUndefined();
  });

  it("says how to get Node wherever it runs, and names make's .tools/ only in this repository's checkout", () => {
    const installed = nodeTooOld('20.20.2');
    expect(installed).toBe(
      'helm-operator needs Node >= 22.19, found v20.20.2: install Node 22.19 or newer (Node 24 LTS from ' +
        'https://nodejs.org, your package manager or a version manager such as nvm) and run helm-operator with it',
    );
    expect(installed).not.toMatch(/make|\.tools/);
    expect(nodeTooOld('20.20.2', { checkout: true })).toBe(
      `${installed}; in this repository's checkout, make puts Node 24 into .tools/ (hack/ensure-node.sh) for its targets`,
    );
  });
});

// The machine's own Node (20 on the CI machine) runs the built entry point: the check must come before any import
// that breaks on it. Skipped where dist/ is not built or no older node is installed.
const SYSTEM_NODE = '/usr/bin/node';
const MAIN = fileURLToPath(new URL('../../dist/cmd/main.js', import.meta.url));
const systemVersion = existsSync(SYSTEM_NODE)
  ? await promisify(execFile)(SYSTEM_NODE, ['--version']).then(
      (r) => r.stdout.trim(),
      () => '',
    )
  : '';
const oldNode = systemVersion !== '' && nodeTooOld(systemVersion) !== undefined && existsSync(MAIN);

describe.runIf(oldNode)(`the built helm-operator under the machine's ${systemVersion || 'node'}`, () => {
  it('exits 1 with the version message before loading anything else', async () => {
    const err = await promisify(execFile)(SYSTEM_NODE, [MAIN, 'version']).then(
      () => undefined,
      (e: { code?: number; stderr?: string }) => e,
    );
    expect(err?.code).toBe(1);
    // dist/ is in this repository's checkout, so the message names make's .tools/.
    expect(err?.stderr?.trim()).toBe(nodeTooOld(systemVersion, { checkout: true }));
  });
});
