import { describe, expect, it } from 'vitest';
import { LineSplitter, LineTooLongError } from './ndjson.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('LineSplitter', () => {
  it('returns each complete line of a chunk and keeps the rest for later', () => {
    const s = new LineSplitter();
    expect(s.push(bytes('{"a":1}\n{"b":2}\n{"c"'))).toEqual(['{"a":1}', '{"b":2}']);
    expect(s.push(bytes(':3}\n'))).toEqual(['{"c":3}']);
    expect(s.end()).toEqual([]);
  });

  it('joins a line split across many chunks, also inside a multi-byte character', () => {
    const s = new LineSplitter();
    const all = bytes('{"msg":"grüße ✓"}\n');
    const lines: string[] = [];
    for (let i = 0; i < all.length; i++) lines.push(...s.push(all.subarray(i, i + 1)));
    expect(lines).toEqual(['{"msg":"grüße ✓"}']);
  });

  it('returns a last line without a trailing newline from end()', () => {
    const s = new LineSplitter();
    expect(s.push(bytes('{"a":1}\n{"b":2}'))).toEqual(['{"a":1}']);
    expect(s.end()).toEqual(['{"b":2}']);
    expect(s.end()).toEqual([]);
  });

  it('skips empty lines and carriage returns', () => {
    const s = new LineSplitter();
    expect(s.push(bytes('\n\r\n{"a":1}\r\n\n'))).toEqual(['{"a":1}']);
  });

  it('does not keep a reference to the caller chunk', () => {
    const s = new LineSplitter();
    const chunk = bytes('{"a":1');
    s.push(chunk);
    chunk.fill(0x20);
    expect(s.push(bytes('}\n'))).toEqual(['{"a":1}']);
  });

  it('fails instead of buffering a line longer than the limit, then starts clean', () => {
    const s = new LineSplitter({ maxLineBytes: 8 });
    s.push(bytes('12345'));
    expect(() => s.push(bytes('6789'))).toThrow(LineTooLongError);
    expect(s.push(bytes('ok\n'))).toEqual(['ok']);
  });
});
