import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from '../config/yaml.js';
import { appendKustomizationResource, writeFiles } from './files.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scaffold-files-'));
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

describe('writeFiles', () => {
  describe('when the directory is empty', () => {
    it('writes every file, creating parent directories', async () => {
      const result = await writeFiles(dir, {
        'a.txt': 'A',
        'config/rbac/role.yaml': 'kind: Role\n',
        'charts/.gitkeep': '',
      });
      expect(result).toEqual({ written: ['a.txt', 'config/rbac/role.yaml', 'charts/.gitkeep'], skipped: [] });
      expect(await readFile(join(dir, 'config/rbac/role.yaml'), 'utf8')).toBe('kind: Role\n');
      expect(await readFile(join(dir, 'charts/.gitkeep'), 'utf8')).toBe('');
    });
  });

  describe('when a file already has exactly the content', () => {
    it('leaves it alone and reports it as skipped', async () => {
      await writeFile(join(dir, 'a.txt'), 'A');
      const result = await writeFiles(dir, { 'a.txt': 'A', 'b.txt': 'B' });
      expect(result).toEqual({ written: ['b.txt'], skipped: ['a.txt'] });
    });
  });

  describe('when files exist with other content', () => {
    beforeEach(async () => {
      await writeFile(join(dir, 'a.txt'), 'mine');
      await mkdir(join(dir, 'sub'));
      await writeFile(join(dir, 'sub/b.txt'), 'mine too');
    });

    it('writes nothing and names every such file, suggesting --force', async () => {
      const err = await caught(writeFiles(dir, { 'a.txt': 'A', 'new.txt': 'N', 'sub/b.txt': 'B' }));
      expect(err.code).toBe('SCAFFOLD_EXISTS');
      expect(err.message).toContain('2 files that already exist');
      expect(err.message).toContain('a.txt, sub/b.txt');
      expect(err.message).toContain('--force');
      expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('mine');
      await expect(readFile(join(dir, 'new.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    });

    it('overwrites them with force', async () => {
      const result = await writeFiles(dir, { 'a.txt': 'A', 'sub/b.txt': 'B' }, { force: true });
      expect(result.written).toEqual(['a.txt', 'sub/b.txt']);
      expect(await readFile(join(dir, 'sub/b.txt'), 'utf8')).toBe('B');
    });
  });

  describe('when a path to write is a directory', () => {
    it('fails even with force, saying so', async () => {
      await mkdir(join(dir, 'Makefile'));
      const err = await caught(writeFiles(dir, { Makefile: 'all:\n' }, { force: true }));
      expect(err.code).toBe('SCAFFOLD_EXISTS');
      expect(err.message).toMatch(/Makefile: it is a directory/);
    });
  });

  describe('when a path leaves the project', () => {
    it.each(['../x', '/etc/x', 'a/../../x', 'a//b', ''])('rejects %j', async (path) => {
      const err = await caught(writeFiles(dir, { [path]: 'x' }));
      expect(err.code).toBe('SCAFFOLD_INVALID_PATH');
    });
  });

  describe('when the signal is aborted', () => {
    it('rejects without writing', async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(writeFiles(dir, { 'a.txt': 'A' }, { signal: controller.signal })).rejects.toThrow();
      await expect(readFile(join(dir, 'a.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    });
  });
});

describe('appendKustomizationResource', () => {
  describe('when resources is an empty flow list', () => {
    it('turns it into a block list with the entry, keeping comments', () => {
      const text = '# header comment\nresources: [] # trailing\n';
      const out = appendKustomizationResource(text, 'bases/cache.example.com_memcacheds.yaml');
      expect(parse(out)).toEqual({ resources: ['bases/cache.example.com_memcacheds.yaml'] });
      expect(out).toContain('# header comment');
      expect(out).toContain('\n- bases/cache.example.com_memcacheds.yaml');
    });
  });

  describe('when resources already has entries and comments', () => {
    const text = `resources:
# All RBAC will be applied under this service account
- service_account.yaml
- role.yaml # the manager role
#- disabled.yaml
`;

    it('appends the entry after the others and keeps every comment', () => {
      const out = appendKustomizationResource(text, 'memcached_admin_role.yaml');
      expect(parse(out)).toEqual({ resources: ['service_account.yaml', 'role.yaml', 'memcached_admin_role.yaml'] });
      for (const comment of ['# All RBAC will be applied', '# the manager role', '#- disabled.yaml']) {
        expect(out).toContain(comment);
      }
    });

    it('returns the text unchanged when the entry is already there', () => {
      expect(appendKustomizationResource(text, 'role.yaml')).toBe(text);
    });
  });

  describe('when the file indents its lists', () => {
    it('keeps that style', () => {
      const out = appendKustomizationResource('resources:\n  - a.yaml\n', 'b.yaml');
      expect(out).toBe('resources:\n  - a.yaml\n  - b.yaml\n');
    });
  });

  describe('when resources is missing or null', () => {
    it.each(['', 'namespace: x\n', 'resources:\n'])('creates it in %j', (text) => {
      const out = appendKustomizationResource(text, '../crd');
      expect((parse(out) as { resources: string[] }).resources).toEqual(['../crd']);
    });
  });

  describe('when the file is not a kustomization it can edit', () => {
    it.each([
      ['resources: a.yaml\n', /"resources" must be a list/],
      ['- a\n', /top level must be a mapping/],
      ['resources: [a\n', /is not valid YAML/],
    ])('rejects %j naming the file', (text, why) => {
      expect(() => appendKustomizationResource(text, 'b.yaml', 'config/crd/kustomization.yaml')).toThrow(why);
      expect(() => appendKustomizationResource(text, 'b.yaml', 'config/crd/kustomization.yaml')).toThrow(
        /^config\/crd\/kustomization.yaml: /,
      );
    });
  });
});
