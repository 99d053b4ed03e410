// Validation of an OLM registry+v1 bundle directory, after operator-registry's format check and
// operator-framework/api's default validators (annotations, CSV, CRDs, owned CRDs, alm-examples, service accounts,
// size), optionally its `operatorframework` suite, plus allowed kinds and bundle.Dockerfile's labels. Called by the
// CLI's `generate bundle` and `bundle validate` and by tests; only reads files, never writes or reaches the network.
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseAllDocuments } from '../../config/yaml.js';
import type { Findings, Manifest } from './format.js';
import { ALLOWED_KINDS, ANNOTATION, CSV_KIND, isDnsLabel, MANIFESTS_DIR, MEDIATYPE, METADATA_DIR } from './format.js';
import { checkCrd } from './validate-crd.js';
import { checkCsv } from './validate-csv.js';
import { checkHub } from './validate-hub.js';

/** OLM stages a bundle in one ConfigMap: api's limit on the gzip'd, base64'd size of its files. */
const MAX_BUNDLE_BYTES = 1 << 20;

async function readText(path: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    return await readFile(path, { encoding: 'utf8', ...(signal ? { signal } : {}) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The documents of a YAML file (JSON is YAML), or the parse error. */
function parseYaml(text: string): { docs: unknown[] } | { error: string } {
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) return { docs: [] };
  const bad = docs.flatMap((d) => d.errors);
  if (bad.length > 0) return { error: bad[0]?.message.split('\n')[0] ?? 'invalid YAML' };
  return { docs: docs.map((d) => d.toJS()).filter((d) => d !== null && d !== undefined) };
}

async function checkAnnotations(dir: string, problems: string[], signal?: AbortSignal) {
  const file = join(METADATA_DIR, 'annotations.yaml');
  const text = await readText(join(dir, file), signal);
  if (text === undefined) {
    problems.push(`${file}: missing (every bundle needs metadata/annotations.yaml)`);
    return undefined;
  }
  const parsed = parseYaml(text);
  const doc = 'docs' in parsed ? (parsed.docs[0] as { annotations?: unknown } | undefined) : undefined;
  const annotations = doc?.annotations;
  if (!annotations || typeof annotations !== 'object' || Array.isArray(annotations)) {
    problems.push(`${file}: has no "annotations" map${'error' in parsed ? ` (${parsed.error})` : ''}`);
    return undefined;
  }
  const a = annotations as Record<string, unknown>;
  const expect = (key: string, want: string) => {
    if (a[key] !== want) problems.push(`${file}: ${key} is ${JSON.stringify(a[key])}, want "${want}"`);
  };
  expect(ANNOTATION.mediatype, MEDIATYPE);
  expect(ANNOTATION.manifests, MANIFESTS_DIR);
  expect(ANNOTATION.metadata, METADATA_DIR);
  const pkg = a[ANNOTATION.package];
  if (typeof pkg !== 'string' || !isDnsLabel(pkg)) {
    problems.push(`${file}: ${ANNOTATION.package} must be the package name (a DNS-1123 label)`);
  }
  const channels = typeof a[ANNOTATION.channels] === 'string' ? (a[ANNOTATION.channels] as string).split(',') : [];
  if (channels.length === 0 || channels.some((c) => c.trim() === '')) {
    problems.push(`${file}: ${ANNOTATION.channels} must list one or more channels, comma-separated`);
  }
  const def = a[ANNOTATION.defaultChannel];
  if (def === '') problems.push(`${file}: ${ANNOTATION.defaultChannel} is empty (leave it out, or name a channel)`);
  else if (def !== undefined && !channels.includes(String(def))) {
    problems.push(`${file}: ${ANNOTATION.defaultChannel} "${String(def)}" is not one of the channels`);
  }
  for (const [k, v] of Object.entries(a)) {
    if (typeof v !== 'string') problems.push(`${file}: ${k} must be a string`);
  }
  return a as Record<string, string>;
}

async function loadManifests(dir: string, problems: string[], signal?: AbortSignal): Promise<Manifest[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(join(dir, MANIFESTS_DIR), { withFileTypes: true });
  } catch {
    problems.push(`${MANIFESTS_DIR}: missing (the bundle's manifests directory)`);
    return [];
  }
  const out: Manifest[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    signal?.throwIfAborted();
    const file = `${MANIFESTS_DIR}${e.name}`;
    if (e.isDirectory()) problems.push(`${file}: a directory (OLM reads no subdirectories of manifests/)`);
    else if (e.name.startsWith('.')) problems.push(`${file}: a hidden file (OLM refuses them)`);
    if (e.isDirectory() || e.name.startsWith('.')) continue;
    const parsed = parseYaml((await readText(join(dir, file), signal)) ?? '');
    if ('error' in parsed) {
      problems.push(`${file}: not valid YAML or JSON (${parsed.error})`);
      continue;
    }
    if (parsed.docs.length !== 1) {
      problems.push(`${file}: holds ${parsed.docs.length} objects; OLM reads exactly one per file`);
    }
    const object = parsed.docs[0];
    if (!object || typeof object !== 'object' || Array.isArray(object)) continue;
    const o = object as Record<string, unknown>;
    const name = (o.metadata as { name?: unknown } | undefined)?.name;
    if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || typeof name !== 'string' || name === '') {
      problems.push(`${file}: needs apiVersion, kind and metadata.name`);
      continue;
    }
    if (!ALLOWED_KINDS.has(o.kind)) problems.push(`${file}: kind ${o.kind} is not allowed in a registry+v1 bundle`);
    out.push({ file, object: o });
  }
  return out;
}

/** bundle.Dockerfile (beside the bundle directory) must carry annotations.yaml as labels and copy both dirs. */
async function checkDockerfile(dir: string, annotations: Record<string, string>, problems: string[]) {
  const text = await readText(join(dirname(dir), 'bundle.Dockerfile'));
  if (text === undefined) return;
  const labels = new Map<string, string>();
  for (const line of text.split('\n').filter((l) => /^\s*LABEL\s/i.test(l))) {
    for (const m of line.matchAll(/([^\s=]+)=("(?:[^"\\]|\\.)*"|\S+)/g)) {
      const v = m[2] ?? '';
      labels.set(m[1] ?? '', v.startsWith('"') ? (JSON.parse(v) as string) : v);
    }
  }
  for (const [k, v] of Object.entries(annotations)) {
    if (labels.get(k) !== v)
      problems.push(`bundle.Dockerfile: LABEL ${k} is ${JSON.stringify(labels.get(k))}, want "${v}"`);
  }
  for (const k of labels.keys()) {
    if (!(k in annotations)) problems.push(`bundle.Dockerfile: LABEL ${k} is not in ${METADATA_DIR}annotations.yaml`);
  }
  const name = basename(dir);
  for (const d of [MANIFESTS_DIR, METADATA_DIR]) {
    const copy = new RegExp(`^\\s*COPY\\s+${name}/${d.slice(0, -1)}/?\\s+/${d}\\s*$`, 'im');
    if (!copy.test(text)) problems.push(`bundle.Dockerfile: needs "COPY ${name}/${d.slice(0, -1)} /${d}"`);
  }
  if (!/^\s*FROM\s+scratch\s*$/im.test(text)) problems.push('bundle.Dockerfile: must be FROM scratch');
}

/** The gzip'd, base64'd size of every file under dir, as api's bundle loader sums it. */
async function compressedSize(dir: string, signal?: AbortSignal): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    signal?.throwIfAborted();
    if (!e.isFile()) continue;
    const gz = gzipSync(await readFile(join(e.parentPath, e.name)));
    total += Math.ceil(gz.length / 3) * 4;
  }
  return total;
}

async function checkSize(dir: string, out: Findings, signal?: AbortSignal) {
  const size = await compressedSize(dir, signal).catch(() => 0);
  const kib = (n: number) => `${Math.round(n / 1024)} KiB`;
  if (size > MAX_BUNDLE_BYTES) {
    out.errors.push(`.: the bundle's compressed size ~${kib(size)} exceeds OLM's ${kib(MAX_BUNDLE_BYTES)}`);
  } else if (size > MAX_BUNDLE_BYTES * 0.85) {
    out.warnings.push(`.: the bundle's compressed size ~${kib(size)} nears OLM's ${kib(MAX_BUNDLE_BYTES)}`);
  }
}

export interface CheckBundleOptions {
  /** operator-sdk's `--select-optional suite=operatorframework`: also run the operatorhub checks. */
  readonly suite?: 'operatorframework';
  readonly signal?: AbortSignal;
}

/** Errors and warnings found in the bundle at `dir` (the folder holding manifests/ and metadata/). */
export async function checkBundle(dir: string, options: CheckBundleOptions = {}): Promise<Findings> {
  const { signal } = options;
  signal?.throwIfAborted();
  const out: Findings = { errors: [], warnings: [] };
  const annotations = await checkAnnotations(dir, out.errors, signal);
  const manifests = await loadManifests(dir, out.errors, signal);
  const csvs = manifests.filter((m) => m.object.kind === CSV_KIND);
  if (csvs.length !== 1)
    out.errors.push(`${MANIFESTS_DIR}: holds ${csvs.length} ClusterServiceVersions, want exactly 1`);
  for (const crd of manifests.filter((m) => m.object.kind === 'CustomResourceDefinition')) checkCrd(crd, out);
  const csv = csvs[0];
  if (csv) checkCsv(csv, manifests, annotations?.[ANNOTATION.package], out);
  if (csv && options.suite === 'operatorframework') checkHub(csv, out);
  await checkSize(dir, out, signal);
  if (annotations) await checkDockerfile(dir, annotations, out.errors);
  return out;
}

/** The errors found in the bundle at `dir` (default checks); [] means valid. */
export async function validateBundle(dir: string, options: { signal?: AbortSignal } = {}): Promise<string[]> {
  return (await checkBundle(dir, options)).errors;
}
