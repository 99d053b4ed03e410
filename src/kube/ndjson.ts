// Incremental splitter for newline-delimited JSON (the watch stream format): feed it byte chunks as they arrive
// and get back complete lines. Used by kube/rest.ts for watches; pure, no I/O.
// Must never buffer without bound: a line longer than maxLineBytes is an error, not a memory leak.

import { OperatorError } from '../core/errors.js';

export class LineTooLongError extends OperatorError {
  readonly code = 'KUBE_LINE_TOO_LONG';
  constructor(readonly maxLineBytes: number) {
    super(`a watch stream line exceeded ${maxLineBytes} bytes without a newline`);
  }
}

export interface LineSplitterOptions {
  /**
   * The longest line accepted (etcd limits objects to ~1.5 MiB; JSON escaping and the event wrapper add some).
   * @default 16 MiB
   */
  readonly maxLineBytes?: number;
}

/**
 * Splits a byte stream into lines. 0x0A never occurs inside a multi-byte UTF-8 sequence, so splitting bytes at
 * '\n' and decoding each line separately is safe however the chunks are cut. Empty lines (e.g. `\r\n` leftovers
 * or keep-alive newlines) are skipped.
 */
export class LineSplitter {
  readonly #maxLineBytes: number;
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;

  constructor(options: LineSplitterOptions = {}) {
    this.#maxLineBytes = options.maxLineBytes ?? 16 * 1024 * 1024;
  }

  /** Returns the lines completed by this chunk, in order. Throws LineTooLongError (and TypeError on bad UTF-8). */
  push(chunk: Uint8Array): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(0x0a, start); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      this.#append(chunk.subarray(start, nl));
      this.#flushLine(lines);
      start = nl + 1;
    }
    if (start < chunk.length) this.#append(chunk.subarray(start));
    return lines;
  }

  /** The last line if the stream ended without a trailing newline, else nothing. Resets the splitter. */
  end(): string[] {
    const lines: string[] = [];
    this.#flushLine(lines);
    return lines;
  }

  #append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#pendingBytes += bytes.length;
    if (this.#pendingBytes > this.#maxLineBytes) {
      this.#pending = [];
      this.#pendingBytes = 0;
      throw new LineTooLongError(this.#maxLineBytes);
    }
    // Copy: the caller may reuse the chunk's buffer after push() returns.
    this.#pending.push(bytes.slice());
  }

  #flushLine(out: string[]): void {
    if (this.#pendingBytes === 0) return;
    const whole = this.#pending.length === 1 ? this.#pending[0] : concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    if (whole === undefined) return;
    const line = this.#decoder.decode(whole).trim();
    if (line !== '') out.push(line);
  }
}

function concat(parts: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
