// Markdown as GitHub reads it, for the tests of README.md and docs/: headings and the anchors GitHub gives them, the
// relative links of a file and which of them are broken, and the README's blocks marked to be run (quickstart,
// install). Used by test/unit/docs-links.test.ts and test/integration/packaging/{quickstart,install}.test.ts. Pure
// text in, data out; the file system is reached only through the `DocFiles` a caller passes.
import { dirname, join, normalize } from 'node:path';

/** The lines of `text`, with the lines of fenced code blocks (``` or ~~~, indented or not) replaced by ''. */
export function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined) {
      if (open === undefined) return line;
      fence = open;
      return '';
    }
    if (open !== undefined && open[0] === fence[0] && open.length >= fence.length && line.trim() === open) {
      fence = undefined;
    }
    return '';
  });
}

/** The text with every inline code span replaced by `code` and its line breaks (a span does not cross a blank line). */
function withoutCodeSpans(text: string): string {
  return text.replace(
    /(`+)((?:(?!\n\s*\n)[\s\S])*?[^`])\1(?!`)/g,
    (span) => `code${'\n'.repeat(span.split('\n').length - 1)}`,
  );
}

/** A heading's text as GitHub renders it: links and images as their text, HTML tags dropped. */
function headingText(raw: string): string {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim();
}

/**
 * GitHub's anchor for a heading's text (github-slugger): lowercased, every character that is not a letter, a mark, a
 * digit, `_`, `-` or a space dropped, each space turned into `-`.
 */
export function slug(heading: string): string {
  return headingText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The headings of `text` (ATX `#`…`######` and setext), outside code blocks, in order. */
export function headings(text: string): string[] {
  const lines = proseLines(text);
  const found: string[] = [];
  lines.forEach((line, i) => {
    const atx = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) {
      found.push(atx[1] ?? '');
      return;
    }
    const above = lines[i - 1] ?? '';
    if (/^ {0,3}(=+|-+)[ \t]*$/.test(line) && above.trim() !== '' && !/^\s*([-*+]|\d+\.|#|>|\|)/.test(above)) {
      found.push(above.trim());
    }
  });
  return found;
}

/**
 * The anchors a link may name in `text`: each heading's slug, a repeated one suffixed `-1`, `-2`, … as GitHub does,
 * and the `id`/`name` of any HTML element.
 */
export function anchors(text: string): Set<string> {
  const seen = new Set<string>();
  for (const heading of headings(text)) {
    const base = slug(heading);
    let candidate = base;
    for (let n = 1; seen.has(candidate); n++) candidate = `${base}-${n}`;
    seen.add(candidate);
  }
  for (const m of proseLines(text)
    .join('\n')
    .matchAll(/<[a-z][^>]*\s(?:id|name)="([^"]+)"/gi))
    seen.add(m[1] ?? '');
  return seen;
}

export interface Link {
  /** 1-based line of the link in its file. */
  readonly line: number;
  readonly target: string;
}

/** Every link target of `text` outside code: inline links and images, and reference definitions (`[x]: target`). */
export function links(text: string): Link[] {
  const prose = withoutCodeSpans(proseLines(text).join('\n'));
  const found: Link[] = [];
  const lineOf = (index: number) => prose.slice(0, index).split('\n').length;
  for (const m of prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+["'(][^)]*)?\)/g)) {
    found.push({ line: lineOf(m.index), target: m[1] ?? '' });
  }
  for (const m of prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) {
    found.push({ line: lineOf(m.index), target: m[1] ?? '' });
  }
  return found.sort((a, b) => a.line - b.line);
}

/** What a link check may look at: whether a path (relative to the repository) exists, and a markdown file's text. */
export interface DocFiles {
  exists(path: string): boolean;
  /** The text of a markdown file; undefined when it is not one (a directory, another kind of file). */
  markdown(path: string): string | undefined;
}

export interface BrokenLink {
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly why: string;
}

/**
 * The links of `file` (a repository-relative path, with its `text`) that do not resolve: a relative path to nothing,
 * or an anchor (in the same file or in `file.md#anchor`) that no heading of the target gives. Links with a scheme
 * (`https:`, `mailto:`) and to the site root are not checked.
 */
export function brokenLinks(file: string, text: string, files: DocFiles): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const { line, target } of links(text)) {
    if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) continue;
    const hash = target.indexOf('#');
    const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const resolved = path === '' ? file : normalize(join(dirname(file), path));
    const report = (why: string) => broken.push({ file, line, target, why });
    if (resolved.startsWith('..')) {
      report('points outside the repository');
      continue;
    }
    if (path !== '' && !files.exists(resolved)) {
      report(`${resolved} does not exist`);
      continue;
    }
    if (anchor === undefined) continue;
    const targetText = resolved === file ? text : files.markdown(resolved);
    if (targetText === undefined) report(`${resolved} is not a markdown file, so it has no #${anchor}`);
    else if (!anchors(targetText).has(anchor)) report(`${resolved} has no heading whose anchor is #${anchor}`);
  }
  return broken;
}

/** How the quickstart test runs a block: in the terminal, left running in a second one, or after Ctrl-C of that one. */
export type QuickstartMode = 'run' | 'background' | 'after-interrupt';

export interface QuickstartBlock {
  readonly mode: QuickstartMode;
  /** The block's shell text, as a user would paste it. */
  readonly script: string;
  /** 1-based line of its marker. */
  readonly line: number;
}

const MODES: Readonly<Record<string, QuickstartMode>> = {
  '': 'run',
  ': background': 'background',
  ': after Ctrl-C': 'after-interrupt',
};

/**
 * The blocks of `text` marked to be run, in order: a line `<!-- quickstart -->` (or `<!-- quickstart: background -->`,
 * `<!-- quickstart: after Ctrl-C -->`) directly followed by a ```sh fenced block. Throws on a marker that is not
 * followed by one, or that it does not know.
 */
export function quickstartBlocks(text: string): QuickstartBlock[] {
  const lines = text.split('\n');
  const blocks: QuickstartBlock[] = [];
  lines.forEach((line, i) => {
    const marker = /^<!--\s*quickstart(.*?)\s*-->$/.exec(line.trim());
    if (!marker) return;
    const mode = MODES[marker[1] ?? ''];
    if (mode === undefined) throw new Error(`line ${i + 1}: unknown quickstart marker ${line.trim()}`);
    if ((lines[i + 1] ?? '').trim() !== '```sh') {
      throw new Error(`line ${i + 1}: a quickstart marker must be directly followed by a \`\`\`sh block`);
    }
    const end = lines.findIndex((l, j) => j > i + 1 && l.trim() === '```');
    if (end < 0) throw new Error(`line ${i + 1}: the quickstart block is not closed`);
    blocks.push({ mode, script: `${lines.slice(i + 2, end).join('\n')}\n`, line: i + 1 });
  });
  return blocks;
}

/**
 * The ```sh blocks of `text` that a line `<!-- NAME -->` (exactly) directly precedes, in order: e.g. the README's
 * `<!-- install -->` block. Throws on such a marker that is not followed by a closed ```sh block.
 */
export function markedBlocks(text: string, name: string): { readonly script: string; readonly line: number }[] {
  const lines = text.split('\n');
  const blocks: { script: string; line: number }[] = [];
  lines.forEach((line, i) => {
    if (line.trim() !== `<!-- ${name} -->`) return;
    const end = lines.findIndex((l, j) => j > i + 1 && l.trim() === '```');
    if ((lines[i + 1] ?? '').trim() !== '```sh' || end < 0) {
      throw new Error(`line ${i + 1}: <!-- ${name} --> must be directly followed by a closed \`\`\`sh block`);
    }
    blocks.push({ script: `${lines.slice(i + 2, end).join('\n')}\n`, line: i + 1 });
  });
  return blocks;
}
