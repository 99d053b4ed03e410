// The project's values-from switch: PROJECT's own top-level `valuesFrom: true` (like `scaffolder`, a field of this
// tool's), written by `create api --values-from` or `generate rbac --values-from`, so that every later `generate
// rbac` keeps the manager role's read access to ConfigMaps and Secrets. Called by api.ts and rbac.ts; it never
// touches another field of PROJECT (comments and order are kept).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isMap, parse, parseDocument } from '../../config/yaml.js';
import { isRecord } from '../../core/guards.js';
import { ScaffoldError } from '../errors.js';
import { stringifyLike } from '../files.js';
import { PATHS } from '../templates/context.js';

/** PROJECT's field. */
export const VALUES_FROM_FIELD = 'valuesFrom';

/** Whether PROJECT says the operator reads values-from ConfigMaps and Secrets (false without a PROJECT). */
export async function projectValuesFrom(dir: string, signal?: AbortSignal): Promise<boolean> {
  const text = await readFile(join(dir, PATHS.project), { encoding: 'utf8', signal }).catch(() => undefined);
  if (text === undefined) return false;
  try {
    const root: unknown = parse(text);
    return isRecord(root) && root[VALUES_FROM_FIELD] === true;
  } catch {
    return false; // readProject reports a malformed PROJECT
  }
}

/** Sets `valuesFrom: true` in PROJECT (unchanged when already set). */
export async function enableProjectValuesFrom(dir: string, signal?: AbortSignal): Promise<void> {
  const file = join(dir, PATHS.project);
  const text = await readFile(file, { encoding: 'utf8', signal });
  const doc = parseDocument(text);
  const root: unknown = doc.contents;
  if (doc.errors.length > 0 || !isMap(root)) {
    throw new ScaffoldError(`${file} is not a YAML mapping; fix the file`, 'SCAFFOLD_INVALID_FILE');
  }
  if (root.get(VALUES_FROM_FIELD) === true) return;
  root.set(VALUES_FROM_FIELD, true);
  await writeFile(file, stringifyLike(doc, text), { encoding: 'utf8', signal });
}
