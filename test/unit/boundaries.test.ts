// The architecture's boundaries, checked rather than only written (the map and the checker are in
// test/support/boundaries.ts; docs/contributing.md's architecture section shows the same map), and the test tooling's:
// chaos/ and bench/ share test/support/, never each other. Part of `make test`; each check reads every source file
// (a few seconds on a loaded machine), hence the 30 s timeouts.
import { describe, expect, it } from 'vitest';
import { moduleOf as mod, readModules, readTooling, toolingViolations, violations } from '../support/boundaries.js';

describe('the boundaries of src/', { timeout: 30_000 }, () => {
  const modules = readModules();

  it('finds the modules it checks', () => {
    expect(modules.length).toBeGreaterThan(50);
    expect(modules.some((m) => m.file === 'cmd/cli.ts')).toBe(true);
  });

  it('hold: one home per library, process only in the composition root, no upward import, no cycle, one face', () => {
    expect(violations(modules)).toEqual([]);
  });
});

describe('the boundary check itself', () => {
  it('fails a library imported outside its home module', () => {
    expect(violations([mod('reconciler/x.ts', "import pino from 'pino';")])).toEqual([
      'reconciler/x.ts imports pino: only observability/logger.ts may',
    ]);
  });

  it('fails node:http imported as a value, and lets a type-only import through', () => {
    expect(violations([mod('kube/x.ts', "import http from 'node:http';")])).toEqual([
      'kube/x.ts imports node:http as a value: use core/node-http.ts (an ESM import of it loads undici)',
    ]);
    expect(violations([mod('kube/y.ts', "import { request } from 'node:http';")])).toHaveLength(1);
    expect(violations([mod('kube/z.ts', "import type { Agent } from 'node:http';")])).toEqual([]);
  });

  it('fails a read of process outside src/cmd/, but not a comment or a property named process', () => {
    expect(violations([mod('helm/x.ts', 'export const e = process.env.HOME;')])).toEqual([
      'helm/x.ts reads process: only src/cmd/ may (pass the value in)',
    ]);
    expect(violations([mod('helm/y.ts', '// process.env\nexport const o = { process: 1 }; o.process;')])).toEqual([]);
    expect(violations([mod('cmd/z.ts', 'export const e = process.env.HOME;')])).toEqual([]);
  });

  it('fails an import of a higher layer, a type-only one too', () => {
    expect(violations([mod('helm/x.ts', "import type { Y } from '../reconciler/types.js';")])).toEqual([
      'helm/x.ts imports reconciler/types.ts, a higher layer',
    ]);
  });

  it('fails a room of reconciler/ that imports a higher room or a phase, and lets it import the run context', () => {
    expect(violations([mod('reconciler/status/x.ts', "import { y } from '../release/y.js';")])).toEqual([
      'reconciler/status/x.ts imports reconciler/release/y.ts, a higher room',
    ]);
    expect(violations([mod('reconciler/inputs/x.ts', "import { settle } from '../settle.js';")])).toEqual([
      'reconciler/inputs/x.ts imports reconciler/settle.ts, a phase of reconciler/ (rooms may import only types.ts, run.ts, options.ts, classify.ts, retry.ts)',
    ]);
    expect(
      violations([
        mod('reconciler/deletion/x.ts', "import type { R } from '../run.js';\nimport { s } from '../status/s.js';"),
      ]),
    ).toEqual([]);
  });

  it('fails code outside reconciler/ that imports a file of it other than its face, a type-only import too', () => {
    expect(
      violations([
        mod('manager/x.ts', "import type { G } from '../reconciler/rollout/step.js';"),
        mod('manager/y.ts', "import { k } from '../reconciler/kit.js';"),
      ]),
    ).toEqual([
      'manager/x.ts imports reconciler/rollout/step.ts: code outside reconciler/ imports only its face (reconciler.ts, options.ts, types.ts)',
      'manager/y.ts imports reconciler/kit.ts: code outside reconciler/ imports only its face (reconciler.ts, options.ts, types.ts)',
    ]);
    const face =
      "import { HelmReconciler } from '../reconciler/reconciler.js';\nimport type { O } from '../reconciler/options.js';";
    expect(violations([mod('manager/z.ts', `${face}\nimport type { C } from '../reconciler/types.js';`)])).toEqual([]);
  });

  it('fails a shared root file of reconciler/ that imports a room, and lets a phase import one', () => {
    expect(violations([mod('reconciler/run.ts', "import type { S } from './status/updater.js';")])).toEqual([
      'reconciler/run.ts imports reconciler/status/updater.ts: the shared root files of reconciler/ import no room',
    ]);
    expect(violations([mod('reconciler/settle.ts', "import { d } from './status/draft.js';")])).toEqual([]);
  });

  it('fails a re-export of one of our modules, but not a library home re-exporting its library', () => {
    expect(violations([mod('helm/x.ts', "export type { Y } from './y.js';")])).toEqual([
      'helm/x.ts re-exports from another module: import each name from its own module (one path per type)',
    ]);
    expect(violations([mod('kube/x.ts', "export type * from './types.js';")])).toEqual([
      'kube/x.ts re-exports from another module: import each name from its own module (one path per type)',
    ]);
    expect(violations([mod('config/yaml.ts', "export { parse } from 'yaml';")])).toEqual([]);
  });

  it('fails an import cycle', () => {
    const found = violations([
      mod('helm/a.ts', "import { b } from './b.js';"),
      mod('helm/b.ts', "import type { A } from './a.js';"),
    ]);
    expect(found).toEqual(['import cycle: helm/a.ts → helm/b.ts → helm/a.ts']);
  });
});

describe('the boundary of chaos/ and bench/', { timeout: 30_000 }, () => {
  const tooling = readTooling();

  it('finds the modules it checks', () => {
    expect(tooling.filter((m) => m.file.startsWith('chaos/')).length).toBeGreaterThan(10);
    expect(tooling.filter((m) => m.file.startsWith('bench/')).length).toBeGreaterThan(10);
  });

  it('holds: neither imports the other, and of test/ only test/support/', () => {
    expect(toolingViolations(tooling)).toEqual([]);
  });

  it('fails chaos/ importing bench/ and bench/ importing chaos/, a type-only import too', () => {
    expect(
      toolingViolations([
        mod('chaos/soak.ts', "import { memMiB } from '../bench/proc.ts';"),
        mod('bench/phases/x.ts', "import type { Plane } from '../../chaos/kit/plane.ts';"),
        mod('bench/y.ts', "import { until } from '../test/support/until.ts';\nimport { f } from './kit.ts';"),
      ]),
    ).toEqual([
      'chaos/soak.ts imports bench/proc.ts: chaos/ and bench/ never import each other (share it through test/support/)',
      'bench/phases/x.ts imports chaos/kit/plane.ts: chaos/ and bench/ never import each other (share it through test/support/)',
    ]);
  });

  it('fails a folder of test/ other than test/support/', () => {
    expect(toolingViolations([mod('chaos/x.ts', "import { FakeHelm } from '../test/fakes/helm.js';")])).toEqual([
      'chaos/x.ts imports test/fakes/helm.ts: test/support/ is the only kit chaos/ and bench/ import',
    ]);
  });
});
