// The logging interface every module receives (pino's Logger satisfies it structurally). Data goes in the object,
// the message is fixed text. Imports nothing; never log values, manifests above debug, or secrets.

export interface Logger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** A logger that drops everything (tests, and code paths that have none). */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
