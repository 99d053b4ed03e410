// Renders the sample custom resource of a `create api` kind (config/samples/<group>_<version>_<kind>.yaml): its spec
// is the chart's values.yaml text indented under `spec:`, comments kept (operator-sdk re-marshals and loses them).
// Called by api.ts. Pure; if the indented text would not read back as the same values, it falls back to plain YAML.
import { isDeepStrictEqual } from 'node:util';
import { parse, stringify } from '../../config/yaml.js';
import { ScaffoldError } from '../errors.js';

export interface SampleInput {
  /** `<group>.<domain>/<version>`. */
  readonly apiVersion: string;
  readonly kind: string;
  /** The chart directory relative to the project, e.g. `charts/nginx`. */
  readonly chartPath: string;
  /** The text of the chart's values.yaml ('' when it has none), with any --values files set over it. */
  readonly valuesText: string;
  /** The --values flags whose values were set over values.yaml (named in the spec's comment). */
  readonly valuesFlags?: readonly string[] | undefined;
}

export interface SampleResult {
  readonly text: string;
  /** The parsed values (what `spec` holds). */
  readonly values: unknown;
  readonly warnings: string[];
}

/** `config/samples/` file name: `<group>_<version>_<lowercase kind>.yaml`, as kubebuilder names it. */
export function sampleFileName(group: string, version: string, kind: string): string {
  return `${group}_${version}_${kind.toLowerCase()}.yaml`;
}

/** Parses values.yaml as helm would insist: a mapping, or empty. */
export function parseValues(text: string, chartPath: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = parse(text);
  } catch (err) {
    throw new ScaffoldError(
      `${chartPath}/values.yaml is not valid YAML (${(err as Error).message}): fix the chart`,
      'SCAFFOLD_CHART_INVALID',
      { cause: err },
    );
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new ScaffoldError(`${chartPath}/values.yaml must be a mapping of values`, 'SCAFFOLD_CHART_INVALID');
  }
  return data as Record<string, unknown>;
}

export function renderSample(input: SampleInput): SampleResult {
  const values = parseValues(input.valuesText, input.chartPath);
  const head = [
    `apiVersion: ${input.apiVersion}`,
    `kind: ${input.kind}`,
    'metadata:',
    `  name: ${input.kind.toLowerCase()}-sample`,
  ].join('\n');
  if (Object.keys(values).length === 0) return { text: `${head}\nspec: {}\n`, values, warnings: [] };

  const flags = input.valuesFlags ?? [];
  const over = flags.length === 0 ? '' : `, with the values of ${flags.join(', ')} set over them`;
  const comment = `  # Default values copied from ${input.chartPath}/values.yaml${over}\n`;
  const body = documentBody(input.valuesText);
  if (body !== undefined) {
    const text = `${head}\nspec:\n${comment}${indent(body)}`;
    if (readsBackAs(text, values)) return { text, values, warnings: [] };
  }
  const plain = stringify(values, { lineWidth: 0 });
  return {
    text: `${head}\nspec:\n${comment}${indent(plain)}`,
    values,
    warnings: [
      `${input.chartPath}/values.yaml could not be copied with its comments (several documents or unusual layout): ` +
        'the sample holds its values without comments',
    ],
  };
}

/** The single document of values.yaml without a leading `%` directive or `---` line; undefined for several. */
function documentBody(text: string): string | undefined {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let rest = lines;
  const startMarker = lines.findIndex((l) => /^---(\s|$)/.test(l));
  if (startMarker >= 0 && lines.slice(0, startMarker).every((l) => /^\s*(#.*|%.*)?$/.test(l))) {
    if (/\S/.test(lines[startMarker]?.slice(3).replace(/#.*/, '') ?? '')) return undefined; // `--- value`
    // Comments before the marker are kept; directives (`%YAML 1.2`) cannot appear inside spec.
    rest = [...lines.slice(0, startMarker).filter((l) => !l.startsWith('%')), ...lines.slice(startMarker + 1)];
  }
  if (rest.some((l) => /^(---|\.\.\.)(\s|$)/.test(l))) return undefined;
  while (rest.length > 0 && rest.at(-1)?.trim() === '') rest.pop();
  return `${rest.join('\n')}\n`;
}

/** Every non-empty line indented by two spaces (whitespace-only lines too, so block scalars keep their content). */
function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? '' : `  ${line}`))
    .join('\n');
}

function readsBackAs(text: string, values: unknown): boolean {
  try {
    const doc: unknown = parse(text);
    return typeof doc === 'object' && doc !== null && isDeepStrictEqual((doc as { spec?: unknown }).spec, values);
  } catch {
    return false;
  }
}
