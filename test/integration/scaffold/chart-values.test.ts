// The built CLI on charts a user brings: one with a `required` value (test/fixtures/charts/needs-values, and a copy
// without its values.schema.json, where helm's own `required` fails) is scaffolded with a warning that suggests no
// flag the command refuses and with marked default rules; the API server rejects its sample until `create api --force
// --values FILE` sets the value. One whose dependency cannot be fetched leaves the project as it was, and once the
// dependency is vendored where the message says, the same command succeeds and keeps it.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCleanups } from '../../support/operator.js';
import { newProject } from '../../support/project.js';

const rand = () => Math.random().toString(36).slice(2, 8);
const domain = `nv${rand()}.example.com`;
const CHARTS = join(ROOT, 'test/fixtures/charts');
const failure = (run: () => string) => {
  try {
    return `exit 0:\n${run()}`;
  } catch (err) {
    return (err as Error).message;
  }
};

describe('the CLI on a chart that needs values and on one whose dependency is not vendored', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    await runCleanups(cleanups);
  });

  it('scaffolds the first with a warning; the sample is accepted once --values sets what it requires', () => {
    const project = newProject('needs-values');
    cleanups.push(async () => project.remove());
    const group = `msg.${domain}`;
    const init = project.cli(
      'init',
      `--domain=${domain}`,
      `--project-name=p${rand()}`,
      `--helm-chart=${join(CHARTS, 'needs-values')}`,
      '--group=msg',
    );
    expect(init).toMatch(
      /warning: charts\/needs-values does not render with its default values .*missing property 'message'/,
    );
    expect(init).toContain("got operator-sdk's default rules for it");
    expect(init).not.toContain('--debug');
    const role = readFileSync(join(project.dir, 'config/rbac/role.yaml'), 'utf8');
    expect(role).toContain('# default rules for charts/needs-values, which did not render: review them');

    // Without values.schema.json, helm's `required` fails, and helm adds "Use --debug flag": the CLI does not say so.
    const plain = mkdtempSync(join(tmpdir(), 'plain-values-'));
    cleanups.push(async () => rmSync(plain, { recursive: true, force: true }));
    cpSync(join(CHARTS, 'needs-values'), join(plain, 'plain-values'), { recursive: true });
    rmSync(join(plain, 'plain-values', 'values.schema.json'));
    const meta = join(plain, 'plain-values', 'Chart.yaml');
    writeFileSync(meta, readFileSync(meta, 'utf8').replace('name: needs-values', 'name: plain-values'));
    const created = project.cli('create', 'api', `--helm-chart=${join(plain, 'plain-values')}`, '--group=plain');
    expect(created).toMatch(/warning: charts\/plain-values does not render .*\): a message is required\), so its RBAC/);
    expect(created).not.toContain('--debug');

    const crd = join(project.dir, 'config/crd/bases', `${group}_needsvalueses.yaml`);
    const sample = join(project.dir, 'config/samples', `msg_v1alpha1_needsvalues.yaml`);
    project.kubectl('apply', '--server-side', '-f', crd);
    cleanups.push(async () => project.kubectl('delete', '--ignore-not-found', '-f', crd));
    project.kubectl('wait', '--for=condition=Established', '--timeout=60s', `crd/needsvalueses.${group}`);
    const dryRun = () => project.kubectl('apply', '--dry-run=server', '-n', 'default', '-f', sample);
    expect(failure(dryRun)).toMatch(/spec\.message: Required value/);

    writeFileSync(join(project.dir, 'message.yaml'), 'message: hello\n');
    const again = project.cli(
      'create',
      'api',
      `--helm-chart=${join(CHARTS, 'needs-values')}`,
      '--group=msg',
      '--force',
      '--values=message.yaml',
    );
    expect(again).not.toMatch(/needs-values does not render|got operator-sdk's default rules|--debug/);
    expect(again).toMatch(
      /warning: config\/rbac\/role\.yaml: removed the \d+ default rules an earlier run wrote for charts\/needs-values/,
    );
    expect(readFileSync(join(project.dir, 'config/rbac/role.yaml'), 'utf8')).not.toContain('default rules for');
    project.kubectl('apply', '--server-side', '-f', crd);
    expect(dryRun()).toContain('(server dry run)');
  });

  it('leaves the project as it was when a dependency cannot be fetched, and says where to vendor it', () => {
    const project = newProject('dep-parent');
    cleanups.push(async () => project.remove());
    project.cli('init', `--domain=${domain}`, `--project-name=p${rand()}`);
    const src = mkdtempSync(join(tmpdir(), 'dep-parent-'));
    cleanups.push(async () => rmSync(src, { recursive: true, force: true }));
    cpSync(join(CHARTS, 'dep-parent'), join(src, 'dep-parent'), { recursive: true });
    const before = readdirSync(project.dir, { recursive: true }).sort();
    const out = failure(() => project.cli('create', 'api', `--helm-chart=${join(src, 'dep-parent')}`));
    expect(out).toMatch(/cannot fetch the dependencies of charts\/dep-parent .*no project file was changed/);
    expect(out).toContain('mkdir -p charts/dep-parent/charts, then dep-lib 0.1.0: helm pull dep-lib --repo');
    expect(out).not.toContain('--debug');
    expect(readdirSync(project.dir, { recursive: true }).sort()).toEqual(before);

    // Vendored where it says (copied, as the message allows), the same command succeeds and keeps it.
    cpSync(join(CHARTS, 'dep-lib'), join(project.dir, 'charts/dep-parent/charts/dep-lib'), { recursive: true });
    expect(project.cli('create', 'api', `--helm-chart=${join(src, 'dep-parent')}`)).toContain('created DepParent');
    expect(readdirSync(join(project.dir, 'charts/dep-parent/charts'))).toEqual(['dep-lib']);
  });
});
