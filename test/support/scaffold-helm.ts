// Finds a real helm binary for the scaffolder's unit tests (HELM_BIN, else the testenv cache) and builds a
// non-isolated helm client whose homes live in a temp directory, so tests never read or write ~/.config/helm.
// Test-only; `helm template`, `create`, `package` and `dependency build` need no cluster.
import { existsSync, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createHelmCli } from '../../src/helm/cli.js';
import type { HelmCli } from '../../src/helm/types.js';

/** The helm binary to use, or undefined (tests then skip with SKIP_REASON). */
export function findHelm(): string | undefined {
  if (process.env.HELM_BIN) return process.env.HELM_BIN;
  const root = join(homedir(), '.cache', 'helm-operator-ts', 'testenv', 'bin');
  const dirs = (() => {
    try {
      return readdirSync(root).sort().reverse();
    } catch {
      return [];
    }
  })();
  for (const dir of dirs) {
    const candidate = join(root, dir, 'helm-v3');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

export const SKIP_REASON =
  'no helm binary: set HELM_BIN or build the testenv (make test) to run the scaffolder tests that use helm';

/** A scaffolding helm client (isolated: false) whose HELM_*_HOME are private directories under `dir`. */
export async function scaffoldHelm(binary: string, dir: string): Promise<HelmCli> {
  const homes = { cache: join(dir, 'helm-cache'), config: join(dir, 'helm-config'), data: join(dir, 'helm-data') };
  await Promise.all(Object.values(homes).map((d) => mkdir(d, { recursive: true })));
  return createHelmCli({
    binary,
    workDir: join(dir, 'helm-work'),
    isolated: false,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      HELM_CACHE_HOME: homes.cache,
      HELM_CONFIG_HOME: homes.config,
      HELM_DATA_HOME: homes.data,
    },
  });
}
