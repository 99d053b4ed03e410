// A Logger for unit tests that keeps every line (level, fields, message) in an array the test reads, and renders
// them as text for "never logs the secret" checks. Test-only: the shared stand-in for src/core/logger.ts' Logger;
// it never writes anywhere.
import type { Logger } from '../../src/core/logger.js';

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly obj: object;
  readonly msg: string;
}

/** One line as "level msg {fields}". */
export const lineText = (l: LogLine): string => `${l.level} ${l.msg} ${JSON.stringify(l.obj)}`;

/** A logger (children included) that appends to `lines`; `text()` is every line as "level msg {fields}". */
export function recordingLogger(lines: LogLine[] = []) {
  const at = (level: LogLine['level']) => (obj: object, msg: string) => void lines.push({ level, obj, msg });
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  const text = () => lines.map(lineText).join('\n');
  return { logger, lines, text };
}
