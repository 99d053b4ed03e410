// Guards the catalogues against the docs, as error-codes.test.ts guards the error codes: every CR annotation of
// src/reconciler/inputs/annotation-catalogue.ts is a row of docs/reference.md's annotation table with the same default,
// and its documenting section of docs/user-guide.md exists and names it; every condition type and reason of
// src/conditions/condition-catalogue.ts is in docs/reference.md's conditions table, and the table names no other.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONDITION_CATALOGUE } from '../../src/conditions/condition-catalogue.js';
import { ANNOTATION_PREFIX, annotationEntries } from '../../src/reconciler/inputs/annotation-catalogue.js';

const DOCS = join(resolve(import.meta.dirname, '../..'), 'docs');
/** The tables of annotations and conditions. */
const REFERENCE = readFileSync(join(DOCS, 'reference.md'), 'utf8');
/** The sections the annotation catalogue names. */
const USER_GUIDE = readFileSync(join(DOCS, 'user-guide.md'), 'utf8');

/** The rows of the docs/reference.md table whose header line is `header`: each row's cells, trimmed. */
function table(header: string): string[][] {
  const lines = REFERENCE.split('\n');
  const start = lines.indexOf(header);
  expect(start, `docs/reference.md has a table headed ${header}`).toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** The backticked words of a cell. */
const ticked = (cell: string | undefined) => [...(cell ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');

/** The docs/user-guide.md section under a `##`/`###` heading, up to the next heading of any level. */
function section(heading: string): string | undefined {
  const at = USER_GUIDE.search(new RegExp(`^#{2,3} ${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  if (at < 0) return undefined;
  const rest = USER_GUIDE.slice(at);
  const body = rest.indexOf('\n') + 1;
  const next = rest.slice(body).search(/^#{2,4} /m);
  return next < 0 ? rest : rest.slice(0, body + next);
}

describe('the annotation catalogue and the docs', () => {
  const rows = table('| annotation | default | effect |');
  /** The documented default by annotation (a row may name several that share it; a note in parentheses may follow). */
  const names = (cell: string | undefined) => ticked(cell?.split(' (')[0]);
  const documented = new Map(rows.flatMap(([cell, defaults]) => names(cell).map((n) => [n, defaults ?? ''])));
  const entries = annotationEntries().map((e) => ({ ...e, short: e.name.slice(ANNOTATION_PREFIX.length) }));

  it('lists the same annotations', () => {
    expect(entries.every((e) => e.name.startsWith(ANNOTATION_PREFIX))).toBe(true);
    expect([...documented.keys()].sort()).toEqual(entries.map((e) => e.short).sort());
  });

  it.each(entries.map((e) => [e.short, e] as const))('gives %s the default the catalogue has', (_, entry) => {
    expect(documented.get(entry.short)).toBe(entry.default);
  });

  it.each(entries.map((e) => [e.short, e] as const))('documents %s in the section the catalogue names', (_, e) => {
    expect(section(e.readme), `a docs/user-guide.md section "${e.readme}"`).toContain(`\`${e.short}\``);
  });
});

describe('the condition catalogue and the docs', () => {
  const rows = table('| condition | status / reason | when |');
  /** The documented reasons by condition type (every row of a type: Deployed has two). */
  const documented = new Map<string, Set<string>>();
  for (const [typeCell, reasonCell] of rows) {
    const type = ticked(typeCell)[0] ?? '';
    const reasons = ticked(reasonCell).filter((w) => /^(<Kind>)?[A-Z][A-Za-z]+$/.test(w) && !STATUSES.has(w));
    documented.set(type, new Set([...(documented.get(type) ?? []), ...reasons]));
  }
  const catalogue = Object.entries(CONDITION_CATALOGUE).map(([type, e]) => [type, [...e.reasons]] as const);

  it('lists the same condition types', () => {
    expect([...documented.keys()].sort()).toEqual(catalogue.map(([type]) => type).sort());
  });

  it.each(catalogue)('gives %s exactly the reasons the catalogue has', (type, reasons) => {
    expect([...(documented.get(type) ?? [])].sort()).toEqual([...reasons].sort());
  });
});

const STATUSES = new Set(['True', 'False', 'Unknown']);
