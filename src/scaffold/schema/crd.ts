// Renders the CustomResourceDefinition of a `create api` kind (config/crd/bases/<group>_<plural>.yaml): operator-sdk's
// shape (Namespaced, one served+storage version, status subresource, this project's printer columns), with `spec`
// derived from the chart's values.schema.json when it has one. Called by api.ts; pure except readValuesSchema.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from '../../config/yaml.js';
import { ScaffoldError } from '../errors.js';
import type { SchemaProps } from './keywords.js';
import { structuralSchema } from './values-schema.js';

export interface CrdInput {
  /** The fully qualified group (`<group>.<domain>`). */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  /** The chart directory relative to the project (`charts/nginx`), named in the header comment. */
  readonly chartPath: string;
  /** The structural schema of `spec`; absent means "any fields" (operator-sdk's fixed schema). */
  readonly specSchema?: SchemaProps | undefined;
}

/** The printer columns of this project's CRDs: the Deployed condition, its reason, the release revision, the age. */
export const PRINTER_COLUMNS = [
  {
    name: 'Status',
    type: 'string',
    description:
      'Paused, Irreconcilable, InstallFailed, UpgradeFailed, UninstallFailed, RolloutHeld, HelmRunning, Deployed, Uninstalling, Uninstalled or Pending',
    jsonPath: '.status.state',
  },
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: 'Revision', type: 'integer', jsonPath: '.status.deployedRelease.revision' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
] as const;

/** `config/crd/bases/` file name: `<group>_<plural>.yaml`, as kubebuilder names it. */
export function crdFileName(group: string, plural: string): string {
  return `${group}_${plural}.yaml`;
}

/** The CRD object for `input`, as plain data. */
export function crdObject(input: CrdInput): Record<string, unknown> {
  const { group, version, kind, plural } = input;
  const spec = input.specSchema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const { description, ...specRest } = spec;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      scope: 'Namespaced',
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: PRINTER_COLUMNS.map((c) => ({ ...c })),
          schema: {
            openAPIV3Schema: {
              description: `${kind} is the Schema for the ${plural} API`,
              type: 'object',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: {
                  description:
                    typeof description === 'string'
                      ? description
                      : `Spec defines the desired state of ${kind} (the chart's values)`,
                  ...specRest,
                },
                status: {
                  description: `Status defines the observed state of ${kind}`,
                  type: 'object',
                  'x-kubernetes-preserve-unknown-fields': true,
                },
              },
            },
          },
        },
      ],
    },
  };
}

/** The CRD file's text: a header comment saying where `spec` comes from, then the YAML. */
export function renderCrd(input: CrdInput): string {
  const origin =
    input.specSchema === undefined
      ? `# spec accepts any fields: they are the values of ${input.chartPath}, which has no values.schema.json.`
      : `# spec is derived from ${input.chartPath}/values.schema.json (re-run create api --force after changing it).`;
  const header = `# The CRD of ${input.kind}, scaffolded by \`helm-operator create api\`.\n${origin}\n`;
  return `${header}${stringify(crdObject(input), { lineWidth: 0 })}`;
}

export interface ValuesSchemaResult {
  /** The structural schema for `spec`, or undefined when the chart has no values.schema.json. */
  readonly specSchema: SchemaProps | undefined;
  readonly warnings: string[];
}

/**
 * Reads `<chartDir>/values.schema.json` and converts it for the CRD. `values` is the parsed values.yaml: its keys
 * satisfy `required` (sample-check.ts then checks that the CRD keeps all of them).
 */
export async function readValuesSchema(chartDir: string, values: unknown): Promise<ValuesSchemaResult> {
  const file = join(chartDir, 'values.schema.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { specSchema: undefined, warnings: [] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ScaffoldError(
      `${file} is not valid JSON (${(err as Error).message}): fix it (helm would refuse it too)`,
      'SCAFFOLD_CHART_INVALID',
      { cause: err },
    );
  }
  const { schema, warnings } = structuralSchema(parsed, values);
  return { specSchema: schema, warnings: warnings.map((w) => `values.schema.json: ${w}`) };
}
