// Builds the operator's JSON logger: the only module that imports pino as a value. Called by the CLI entry with
// the level and encoder from the zap-compatible flags. Never writes secrets; callers put data in fields, and an
// Error under `err` is reduced to its type, code, message and cause chain (core/error-fields.ts), nothing else.
import { pino } from 'pino';
import { errFields } from '../core/error-fields.js';
import type { Logger } from '../core/logger.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LoggerOptions {
  /** @default 'info' */
  readonly level?: LogLevel;
  /** `json` (default) or `console` (human-readable single line, like zap's console encoder). */
  readonly encoder?: 'json' | 'console';
  /** Where lines go. @default process.stderr (fd 2) */
  readonly destination?: NodeJS.WritableStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const base = {
    level: options.level ?? 'info',
    base: null,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    // Replaces pino's own err serializer, which copies every enumerable property (stdout, bodies...) and the stack.
    serializers: { err: (err: unknown) => (err instanceof Error ? errFields(err) : err) },
  };
  const destination = options.destination ?? pino.destination({ fd: 2, sync: true });
  if (options.encoder === 'console') {
    const write = (line: string) => {
      const { time, level, msg, ...rest } = JSON.parse(line) as Record<string, unknown>;
      const extra = Object.keys(rest).length > 0 ? `\t${JSON.stringify(rest)}` : '';
      destination.write(`${String(time)}\t${String(level).toUpperCase()}\t${String(msg)}${extra}\n`);
    };
    return pino(base, { write }) as unknown as Logger;
  }
  return pino(base, destination) as unknown as Logger;
}
