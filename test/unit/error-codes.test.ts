// Guards the closed set of error codes: src/core/codes.ts and docs/reference.md's "Error codes" table list the same
// codes, every code an error class of src/ declares or is built with is one of them, and none of them is unused.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, isErrorCode } from '../../src/core/codes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const listed = Object.keys(ERROR_CODES).sort();

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The codes in the first column of docs/reference.md's "Error codes" table. */
function documentedCodes(): string[] {
  const text = readFileSync(join(ROOT, 'docs/reference.md'), 'utf8');
  const start = text.indexOf('## Error codes');
  expect(start).toBeGreaterThan(-1);
  const section = text.slice(start).split(/\n#{2,3} /)[0] ?? '';
  const rows = section.split('\n').filter((l) => l.startsWith('| `'));
  return rows.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1] ?? ''));
}

interface Found {
  readonly where: string;
  readonly code: string;
}

const isErrorName = (name: string) => /Error$/.test(name);
const stringOf = (node: ts.Node | undefined) =>
  node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;

/**
 * Every code literal of an error in src/: `code = '…'` / `code: '…'` members and defaults of classes named *Error,
 * `code ?? '…'` fallbacks inside them, and the literal arguments (`'FOO_BAR'` or `{ code: '…' }`) of `new …Error(…)`.
 * Also every `code` member typed as plain `string` (an open code).
 */
function scan(): { found: Found[]; open: string[] } {
  const found: Found[] = [];
  const open: string[] = [];
  for (const path of sourceFiles(SRC)) {
    const file = relative(ROOT, path);
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const at = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const add = (node: ts.Node, code: string | undefined) => {
      if (code !== undefined) found.push({ where: at(node), code });
    };
    const visitClass = (node: ts.Node): void => {
      if (ts.isPropertyDeclaration(node) && node.name.getText() === 'code') {
        add(node, stringOf(node.initializer));
        if (node.type?.kind === ts.SyntaxKind.StringKeyword) open.push(at(node));
      }
      if (ts.isParameter(node) && node.name.getText() === 'code') {
        add(node, stringOf(node.initializer));
        if (node.type === undefined || node.type.kind === ts.SyntaxKind.StringKeyword) open.push(at(node));
      }
      const fallback = ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken;
      if (fallback && /\bcode$/.test(node.left.getText())) {
        add(node, stringOf(node.right));
      }
      ts.forEachChild(node, visitClass);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isClassDeclaration(node) && node.name && isErrorName(node.name.text)) visitClass(node);
      if (ts.isNewExpression(node) && isErrorName(node.expression.getText())) {
        for (const arg of node.arguments ?? []) {
          const text = stringOf(arg);
          if (text !== undefined && /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(text)) add(arg, text);
          if (ts.isObjectLiteralExpression(arg)) {
            for (const p of arg.properties) {
              if (ts.isPropertyAssignment(p) && p.name.getText() === 'code') add(p, stringOf(p.initializer));
            }
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { found, open };
}

describe('error codes', () => {
  const { found, open } = scan();

  it('are listed the same in src/core/codes.ts and in the docs/reference.md table', () => {
    expect([...documentedCodes()].sort()).toEqual(listed);
  });

  it('list LEADER_ELECTION_LOST', () => {
    expect(listed).toContain('LEADER_ELECTION_LOST');
  });

  it('cover every code an error class of src/ declares or is built with', () => {
    expect(found.length).toBeGreaterThan(40);
    expect(found.filter((f) => !isErrorCode(f.code)).map((f) => `${f.where}: ${f.code}`)).toEqual([]);
  });

  it('are all raised somewhere in src/', () => {
    const used = new Set(found.map((f) => f.code));
    expect(listed.filter((c) => !used.has(c))).toEqual([]);
  });

  it('are never typed as an open string by an error class', () => {
    expect(open).toEqual([]);
  });

  it('have a one-line meaning each', () => {
    for (const meaning of Object.values(ERROR_CODES)) expect(meaning).toMatch(/^[^\n]{5,140}$/);
  });
});
