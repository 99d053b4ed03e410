// Cuts a rendered manifest (multi-document YAML with Helm's `# Source:` comments) into its documents as text, and
// reads the comment lines that open each one. Called by manifest-yaml.ts, manifest.ts and manifest-edit.ts.
// Pure text work: never parses YAML and never puts manifest text in an error.

export interface Chunk {
  readonly text: string;
  /** 0-based line of the manifest where this chunk starts. */
  readonly firstLine: number;
}

/** A document start marker: `---` at column 0, followed by whitespace or the end of the line. */
const SEPARATOR = /^---(?=[ \t\r\n]|$)/gm;
const SOURCE_COMMENT = /^#[ \t]*Source:[ \t]*(\S.*?)[ \t]*$/;

/** Cuts the manifest at document start markers; each chunk keeps its own `---` line. */
export function documentChunks(manifest: string): Chunk[] {
  const starts = [0];
  for (const match of manifest.matchAll(SEPARATOR)) if (match.index > 0) starts.push(match.index);
  const chunks: Chunk[] = [];
  let line = 0;
  for (let i = 0; i < starts.length; i++) {
    const start = starts[i] ?? 0;
    const text = manifest.slice(start, starts[i + 1] ?? manifest.length);
    chunks.push({ text, firstLine: line });
    line += countNewlines(text);
  }
  return chunks;
}

/** The `# Source:` path from the comment lines that open a chunk (never from inside the document's content). */
export function sourceOf(text: string): string | undefined {
  for (const raw of text.split('\n', 64)) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const source = SOURCE_COMMENT.exec(line)?.[1];
    if (source !== undefined) return source;
    const trimmed = (line.startsWith('---') ? line.slice(3) : line).trim();
    if (trimmed !== '' && !trimmed.startsWith('#')) return undefined;
  }
  return undefined;
}

/** The comment lines that open a chunk (after its `---`), each ending in a newline; blank lines are left out. */
export function leadingComments(text: string): string {
  let out = '';
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    let line = text.slice(start, end < 0 ? text.length : end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (start === 0 && /^---(?=[ \t]|$)/.test(line)) line = line.slice(3).trim();
    const trimmed = line.trim();
    if (trimmed !== '' && !trimmed.startsWith('#')) break;
    if (trimmed !== '') out += `${line}\n`;
    if (end < 0) break;
    start = end + 1;
  }
  return out;
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
