// The values each watched chart is rendered with to derive its RBAC rules: the chart's defaults, the spec of every
// sample of that kind in config/samples, and each values file the user names (`--values [Kind=]file`). Called by
// rbac.ts; reads the project's files and never writes them (the sample specs go into a temporary directory the
// caller owns and removes).
import { access, readdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseAllDocuments } from '../../config/yaml.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { isRecord } from '../../core/guards.js';
import { ScaffoldError } from '../errors.js';
import { PATHS } from '../templates/context.js';
import { DEFAULT_VALUES, type RenderedWith } from './kube-version.js';

/** A `--values` flag: a values file for every watched kind, or for one (`--values=Kind=file`). */
export interface ValuesFileFlag {
  readonly kind?: string | undefined;
  /** Absolute path. */
  readonly file: string;
}

/** One rendering of a chart: which values (for messages) and the values file, if any (none: the defaults). */
export interface ValueSet {
  readonly with: RenderedWith;
  readonly file?: string | undefined;
  /** A `--values` file's flag as the user would give it again from the project (rules only it needs are marked so). */
  readonly flag?: string | undefined;
}

export const DEFAULTS: ValueSet = { with: DEFAULT_VALUES };

/** `--values=values/x.yaml` (or `--values=Kind=…`): relative to the project when the file is inside it. */
export function valuesFlagText(f: ValuesFileFlag, projectDir: string): string {
  const rel = relative(projectDir, f.file).split(sep).join('/');
  const shown = rel === '' || rel.startsWith('..') || isAbsolute(rel) ? f.file : rel;
  return `--values=${f.kind === undefined ? '' : `${f.kind}=`}${shown}`;
}

/** Parses one `--values` value, `file` or `Kind=file`, relative to `cwd`. */
export function parseValuesFlag(value: string, cwd: string): ValuesFileFlag {
  const m = /^([A-Z][A-Za-z0-9]*)=(.*)$/s.exec(value);
  const file = m?.[2] ?? value;
  if (file === '') throw new ScaffoldError('flag needs a file: --values=[Kind=]<values.yaml>', 'SCAFFOLD_BAD_ARGS');
  return { ...(m?.[1] === undefined ? {} : { kind: m[1] }), file: resolve(cwd, file) };
}

/** Throws, naming the flag, when a values file cannot be read or names a kind no watches.yaml entry has. */
export async function checkValuesFlags(flags: readonly ValuesFileFlag[], kinds: readonly string[]): Promise<void> {
  for (const f of flags) {
    if (f.kind !== undefined && !kinds.includes(f.kind)) {
      throw new ScaffoldError(
        `--values=${f.kind}=${f.file}: no watches.yaml entry has kind ${f.kind} (kinds: ${kinds.join(', ') || 'none'})`,
        'SCAFFOLD_BAD_ARGS',
      );
    }
    await access(f.file).catch((err: NodeJS.ErrnoException) => {
      throw new ScaffoldError(`--values ${f.file}: cannot read it (${err.code ?? err.message})`, 'SCAFFOLD_BAD_ARGS', {
        cause: err,
      });
    });
  }
}

export interface ValueSetsInput {
  readonly projectDir: string;
  /** The watched kind's group (fully qualified) and kind: the samples whose apiVersion group and kind match. */
  readonly group: string;
  readonly kind: string;
  readonly valuesFiles: readonly ValuesFileFlag[];
  /** Where the samples' specs are written as values files. */
  readonly tmpDir: string;
}

/** The chart's defaults first, then each sample's spec (once per distinct spec), then the values files for it. */
export async function valueSetsFor(input: ValueSetsInput, signal: AbortSignal): Promise<ValueSet[]> {
  const sets: ValueSet[] = [DEFAULTS];
  const seen = new Set<string>([canonicalJson({})]);
  for (const sample of await samplesOf(input.projectDir, input.group, input.kind, signal)) {
    const key = canonicalJson(sample.spec);
    if (seen.has(key)) continue;
    seen.add(key);
    const file = join(input.tmpDir, `sample-${sets.length}.json`);
    await writeFile(file, JSON.stringify(sample.spec), { encoding: 'utf8', mode: 0o600, signal });
    sets.push(sampleSet(sample.file, file));
  }
  return [...sets, ...valuesFileSets(input.valuesFiles, input.kind, input.projectDir)];
}

/** A rendering with the spec of the sample `sampleFile` (project-relative), written as a values file to `file`. */
export function sampleSet(sampleFile: string, file: string): ValueSet {
  return { with: { what: `the spec of ${sampleFile}`, fix: `fix that sample (its spec is the chart's values)` }, file };
}

/** The renderings of `kind`'s chart that the `--values` files ask for, in order. */
export function valuesFileSets(flags: readonly ValuesFileFlag[], kind: string, projectDir: string): ValueSet[] {
  return flags
    .filter((f) => f.kind === undefined || f.kind === kind)
    .map((f) => ({
      with: { what: `the values of ${f.file} (--values)`, fix: 'fix that values file' },
      file: f.file,
      flag: valuesFlagText(f, projectDir),
    }));
}

interface Sample {
  /** Project-relative, for messages. */
  readonly file: string;
  readonly spec: Record<string, unknown>;
}

/** The CRs of group/kind in config/samples (any version), with their specs; unparsable files are skipped. */
async function samplesOf(projectDir: string, group: string, kind: string, signal: AbortSignal): Promise<Sample[]> {
  const dir = join(projectDir, PATHS.samples);
  const out: Sample[] = [];
  for (const name of (await readdir(dir).catch(() => [] as string[])).sort()) {
    if (!/\.ya?ml$/.test(name) || name === 'kustomization.yaml') continue;
    const text = await readFile(join(dir, name), { encoding: 'utf8', signal });
    for (const doc of parseAllDocuments(text)) {
      const cr: unknown = doc.errors.length === 0 ? doc.toJS() : undefined;
      if (!isRecord(cr) || cr.kind !== kind || typeof cr.apiVersion !== 'string') continue;
      if (cr.apiVersion.slice(0, cr.apiVersion.lastIndexOf('/')) !== group || !isRecord(cr.spec)) continue;
      out.push({ file: `${PATHS.samples}/${name}`, spec: cr.spec });
    }
  }
  return out;
}
