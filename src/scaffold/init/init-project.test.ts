// readProject: the PROJECT file create api and generate bundle read back, in operator-sdk's layout or this tool's
// earlier one; a missing or foreign project is SCAFFOLD_NO_PROJECT, a malformed one SCAFFOLD_INVALID_FILE.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readProject } from './init.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scaffold-project-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function caught(p: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code?: string; message: string };
  }
  throw new Error('expected a rejection');
}

describe('readProject', () => {
  it.each([
    ['a layout list', 'layout:\n- helm.sdk.operatorframework.io/v1\n', ['helm.sdk.operatorframework.io/v1']],
    ['a layout string', 'layout: helm.sdk.operatorframework.io/v1\n', ['helm.sdk.operatorframework.io/v1']],
    ["this tool's earlier layout", 'layout: helm-operator-ts/v1\n', ['helm-operator-ts/v1']],
    ['no layout', '', []],
  ])('accepts a project with %s', async (_name, layout, expected) => {
    await writeFile(join(dir, 'PROJECT'), `domain: a.b\n${layout}projectName: x\nresources: []\n`);
    expect((await readProject(dir)).layout).toEqual(expected);
  });

  it("refuses a project of another layout (a Go operator's) as not made by init", async () => {
    await writeFile(join(dir, 'PROJECT'), 'domain: a.b\nlayout:\n- go.kubebuilder.io/v4\nprojectName: x\n');
    const err = await caught(readProject(dir));
    expect(err.code).toBe('SCAFFOLD_NO_PROJECT');
    expect(err.message).toMatch(/layout go\.kubebuilder\.io\/v4 is not a Helm operator project's/);
  });

  it('says to run init when there is no PROJECT file', async () => {
    const err = await caught(readProject(dir));
    expect(err.code).toBe('SCAFFOLD_NO_PROJECT');
    expect(err.message).toMatch(/no PROJECT file in .*: run helm-operator init there first/);
  });

  it.each([
    ['domain: [\n', /is not valid YAML/],
    ['- a\n', /must be a mapping/],
    ['projectName: x\n', /"domain" must be a non-empty string/],
    ['domain: a.b\nprojectName: x\nresources: {}\n', /"resources" must be a list/],
    ['domain: a.b\nprojectName: x\nlayout: [1]\n', /"layout" must be a list of strings/],
    [
      'domain: a.b\nprojectName: x\nresources:\n- group: g\n  kind: K\n',
      /resources\[0\] must have string group, version and kind/,
    ],
  ])('rejects a malformed PROJECT (%j) naming the file', async (text, why) => {
    await writeFile(join(dir, 'PROJECT'), text);
    const err = await caught(readProject(dir));
    expect(err.code).toBe('SCAFFOLD_INVALID_FILE');
    expect(err.message).toMatch(why);
    expect(err.message).toContain(join(dir, 'PROJECT'));
  });
});
