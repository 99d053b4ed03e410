// A scaffold's output as a virtual file set (relative path → content), written into a project directory, plus a
// comment-keeping edit of a kustomization.yaml's `resources:` list. Used by `init` and `create api`.
// Never overwrites a file whose content differs unless `force` is set, and never writes outside the directory.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, posix } from 'node:path';
import { type Document, isMap, isScalar, isSeq, parseDocument, YAMLMap, YAMLSeq } from '../config/yaml.js';
import { ScaffoldError } from './errors.js';

/** Project-relative POSIX path ("config/rbac/role.yaml") → file content. */
export type FileSet = Readonly<Record<string, string>>;

export interface WriteOptions {
  /** Overwrite files whose content differs. */
  readonly force?: boolean;
  readonly signal?: AbortSignal;
}
export interface WriteResult {
  /** Paths (as in the FileSet) created or overwritten. */
  readonly written: string[];
  /** Paths that already had exactly this content: left alone, not a conflict. */
  readonly skipped: string[];
}

/**
 * Writes `files` under `dir`, creating parent directories. Checks every file first and writes nothing when one
 * exists with other content and `force` is not set: the SCAFFOLD_EXISTS error lists all of them.
 */
export async function writeFiles(dir: string, files: FileSet, options: WriteOptions = {}): Promise<WriteResult> {
  const { force = false, signal } = options;
  const toWrite: string[] = [];
  const skipped: string[] = [];
  const conflicts: string[] = [];
  for (const [path, content] of Object.entries(files)) {
    signal?.throwIfAborted();
    const current = await readExisting(dir, checkPath(path));
    if (current === undefined) toWrite.push(path);
    else if (current === content) skipped.push(path);
    else {
      conflicts.push(path);
      toWrite.push(path);
    }
  }
  if (conflicts.length > 0 && !force) {
    const count =
      conflicts.length === 1 ? '1 file that already exists' : `${conflicts.length} files that already exist`;
    throw new ScaffoldError(
      `refusing to overwrite ${count} in ${dir}: ${conflicts.join(', ')}; move them away, or run again with --force to overwrite them`,
      'SCAFFOLD_EXISTS',
    );
  }
  for (const path of toWrite) {
    signal?.throwIfAborted();
    const abs = join(dir, path);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, files[path] ?? '', { encoding: 'utf8', signal });
  }
  return { written: toWrite, skipped };
}

function checkPath(path: string): string {
  const normal = posix.normalize(path);
  if (path === '' || isAbsolute(path) || normal !== path || normal === '..' || normal.startsWith('../')) {
    throw new ScaffoldError(
      `scaffold path ${JSON.stringify(path)} must be relative, normalised and inside the project`,
      'SCAFFOLD_INVALID_PATH',
    );
  }
  return path;
}

/** The file's text, or undefined when it does not exist. */
async function readExisting(dir: string, path: string): Promise<string | undefined> {
  try {
    return await readFile(join(dir, path), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    const why = code === 'EISDIR' ? 'it is a directory' : code === 'ENOTDIR' ? 'a parent of it is a file' : String(err);
    throw new ScaffoldError(`cannot write ${join(dir, path)}: ${why}; move it away and run again`, 'SCAFFOLD_EXISTS', {
      cause: err,
    });
  }
}

/**
 * Adds `resource` to the `resources:` list of a kustomization.yaml's text, keeping its comments; returns the text
 * unchanged when the entry is already there. `file` names the file in errors.
 */
export function appendKustomizationResource(text: string, resource: string, file = 'kustomization.yaml'): string {
  const doc = parseDocument(text);
  const invalid = (why: string) =>
    new ScaffoldError(`${file}: ${why}; fix the file, then run the command again`, 'SCAFFOLD_INVALID_FILE');
  if (doc.errors.length > 0) throw invalid(`is not valid YAML (${doc.errors[0]?.message.split('\n')[0]})`);
  const root: unknown = doc.contents ?? new YAMLMap();
  if (!isMap(root)) throw invalid('the top level must be a mapping (a Kustomization)');
  doc.contents = root as typeof doc.contents;
  let list: unknown = root.get('resources', true);
  if (list === undefined || list === null || (isScalar(list) && list.value === null)) {
    list = new YAMLSeq();
    root.set('resources', list);
  }
  if (!isSeq(list)) throw invalid('"resources" must be a list');
  if (list.items.some((item) => (isScalar(item) ? item.value : item) === resource)) return text;
  list.items.push(doc.createNode(resource));
  list.flow = false;
  return stringifyLike(doc, text);
}

/**
 * Prints an edited document in the style of its original text: block lists at the key's indentation ("- x", as
 * kubebuilder writes them) unless the text indents them, and no folding of long lines.
 */
export function stringifyLike(doc: Document, original: string): string {
  const indentSeq = /^ +- /m.test(original) && !/^- /m.test(original);
  return doc.toString({ indentSeq, lineWidth: 0 });
}
