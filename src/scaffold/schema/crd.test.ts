import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from '../../config/yaml.js';
import { crdFileName, readValuesSchema, renderCrd } from './crd.js';

const DEMO_CRD = join(import.meta.dirname, '..', '..', '..', 'config', 'crd', 'bases', 'demo.example.com_nginxes.yaml');
const input = {
  group: 'demo.example.com',
  version: 'v1alpha1',
  kind: 'Nginx',
  plural: 'nginxes',
  chartPath: 'charts/nginx',
};

describe('when the chart has no values.schema.json', () => {
  it("renders the same CRD as the repository demo (operator-sdk shape, this project's printer columns)", async () => {
    const demo = parse(await readFile(DEMO_CRD, 'utf8'));
    const ours = parse(renderCrd(input));
    expect(ours).toEqual(demo);
    expect(crdFileName(input.group, input.plural)).toBe('demo.example.com_nginxes.yaml');
  });

  it('says in its header where spec comes from', () => {
    expect(renderCrd(input)).toMatch(/^# The CRD of Nginx[^\n]*\n# spec accepts any fields[^\n]*charts\/nginx/);
  });
});

describe('when the chart has values.schema.json', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crd-test-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("derives the CRD spec schema from it, keeping the CRD's own description and status", async () => {
    await writeFile(
      join(dir, 'values.schema.json'),
      JSON.stringify({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        required: ['host'],
        properties: { host: { type: 'string', format: 'hostname' }, replicas: { type: 'integer', minimum: 0 } },
      }),
    );
    const { specSchema, warnings } = await readValuesSchema(dir, { replicas: 1 });
    expect(warnings).toEqual([]);
    const crd = parse(renderCrd({ ...input, specSchema }));
    const version = crd.spec.versions[0];
    expect(version.schema.openAPIV3Schema.properties.spec).toEqual({
      description: "Spec defines the desired state of Nginx (the chart's values)",
      type: 'object',
      required: ['host'],
      properties: { host: { type: 'string', format: 'hostname' }, replicas: { type: 'integer', minimum: 0 } },
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(version.schema.openAPIV3Schema.properties.status['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(version.subresources).toEqual({ status: {} });
    expect(renderCrd({ ...input, specSchema })).toContain('# spec is derived from charts/nginx/values.schema.json');
  });

  it('keeps the values.yaml keys the schema does not declare, as JSON Schema does, without a warning', async () => {
    await writeFile(
      join(dir, 'values.schema.json'),
      JSON.stringify({ type: 'object', properties: { a: { type: 'string' } } }),
    );
    const { specSchema, warnings } = await readValuesSchema(dir, { a: 'x', b: 1 });
    expect(warnings).toEqual([]);
    expect(specSchema?.['x-kubernetes-preserve-unknown-fields']).toBe(true);
  });

  it('reports invalid JSON naming the file', async () => {
    await writeFile(join(dir, 'values.schema.json'), '{ nope');
    await expect(readValuesSchema(dir, {})).rejects.toMatchObject({
      code: 'SCAFFOLD_CHART_INVALID',
      message: expect.stringContaining(join(dir, 'values.schema.json')),
    });
  });

  it('gives no schema when the file is absent', async () => {
    expect(await readValuesSchema(dir, {})).toEqual({ specSchema: undefined, warnings: [] });
  });
});
