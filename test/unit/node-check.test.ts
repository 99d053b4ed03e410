// hack/testenv/node-check.sh on a machine without the real node's host tools (podman, runc, iptables): it names the
// exact apt-get command, and in hack/testenv.sh up's install mode runs it as root (a fake apt-get and a fake `id` on
// a PATH without those tools, so no package is installed and no node is started). Part of `make test`.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = resolve(import.meta.dirname, '../../hack/testenv/node-check.sh');
const HIDDEN = new Set(['podman', 'runc', 'iptables', 'ip6tables', 'id', 'apt-get']);
const INSTALL = 'apt-get update && apt-get install -y --no-install-recommends podman runc iptables';

/** A PATH with the machine's commands but the node's tools, a fake `id -u` (FAKE_UID) and a logging apt-get. */
const bin = mkdtempSync(join(tmpdir(), 'node-check-path-'));
for (const dir of ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin']) {
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir)) {
    if (!HIDDEN.has(name) && !existsSync(join(bin, name))) symlinkSync(join(dir, name), join(bin, name));
  }
}
const script = (name: string, body: string) => {
  writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
};
script('id', 'echo "$FAKE_UID"');
// "Installs" podman and runc only: the check then stops at iptables, before touching the machine's network.
script(
  'apt-get',
  `echo "$*" >>"$APT_LOG"
[[ $1 == install ]] && for t in podman runc; do printf '#!/bin/bash\\n' >"${bin}/$t"; chmod +x "${bin}/$t"; done
exit 0`,
);
afterAll(() => rmSync(bin, { recursive: true, force: true }));

function check(env: Record<string, string>) {
  const log = join(bin, `apt-${Math.random().toString(36).slice(2)}.log`);
  for (const t of ['podman', 'runc']) rmSync(join(bin, t), { force: true });
  const r = spawnSync('/bin/bash', [SCRIPT], {
    env: { PATH: bin, APT_LOG: log, FAKE_UID: '0', ...env },
    encoding: 'utf8',
  });
  return { status: r.status, stderr: r.stderr.trim(), apt: existsSync(log) ? readFileSync(log, 'utf8') : '' };
}

describe.runIf(process.platform === 'linux')('hack/testenv/node-check.sh without podman, runc and iptables', () => {
  it('names the tools and the exact apt-get command, and installs nothing, when only checking', () => {
    const r = check({});
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'testenv up: TESTENV_NODES=real cannot run a node here: podman runc iptables ip6tables are missing; as root, ' +
        `run: ${INSTALL} (or set TESTENV_RUNC=/path/to/runc); TESTENV_NODES=real hack/testenv.sh up does it when run as root`,
    );
    expect(r.apt).toBe('');
  });

  it("prints the command it would run in hack/testenv.sh up's install mode with a dry run", () => {
    const r = check({ TESTENV_NODE_INSTALL: '1', TESTENV_NODE_INSTALL_DRY_RUN: '1' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(`testenv up: podman runc iptables ip6tables are missing; would run: ${INSTALL}`);
    expect(r.apt).toBe('');
  });

  it('runs apt-get as root in install mode, then checks again and names what is still missing', () => {
    const r = check({ TESTENV_NODE_INSTALL: '1' });
    expect(r.apt).toBe('update -qq\ninstall -y -qq --no-install-recommends podman runc iptables\n');
    expect(r.stderr.split('\n')).toEqual([
      `testenv up: podman runc iptables ip6tables are missing; installing them from Debian's packages: ${INSTALL}`,
      `testenv up: TESTENV_NODES=real cannot run a node here: iptables ip6tables still missing after '${INSTALL}'`,
    ]);
    expect(r.status).toBe(1);
  });

  it('does not install as another user: it says to run the command as root', () => {
    const r = check({ TESTENV_NODE_INSTALL: '1', FAKE_UID: '1000' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`as root, run: ${INSTALL}`);
    expect(r.apt).toBe('');
  });
});
