// The `err` field of a log line: an error's type, code and message and its cause chain (and an AggregateError's
// errors), nothing else. Used by every log call that reports an error and as pino's `err` serializer
// (observability/logger.ts). Pure. Never copies other properties: they may hold values (stdout, bodies, objects).

/** What a log line shows of an error. */
export interface ErrFields {
  /** The error's name, e.g. `HelmCommandError` (absent for thrown non-errors). */
  readonly type?: string;
  /** The error's `code` (ours from core/codes.ts, or Node's such as `ECONNREFUSED`), when it has a short one. */
  readonly code?: string | number;
  /** The message, as the error has it (already scrubbed of values by whoever built it). */
  readonly message: string;
  readonly cause?: ErrFields;
  /** An AggregateError's errors (at most MAX_ERRORS). */
  readonly errors?: readonly ErrFields[];
  /** Set where the chain was cut: the next error was already shown above (`cycle`) or too deep (`depth`). */
  readonly truncated?: 'cycle' | 'depth';
}

/** How many errors deep a chain is shown (the error itself counts as 1). */
export const MAX_ERR_DEPTH = 8;
/** How many of an AggregateError's errors are shown. */
export const MAX_ERRORS = 10;
/** Longer messages are cut, so one odd error cannot flood a log line. */
export const MAX_MESSAGE_CHARS = 8_192;

const CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The loggable fields of `err` (any thrown value). */
export function errFields(err: unknown): ErrFields {
  return fields(err, [], 1);
}

function fields(err: unknown, seen: readonly object[], depth: number): ErrFields {
  if (!isErrorLike(err)) return { message: cut(text(err)) };
  const path = [...seen, err];
  const { name, code, cause } = err as { name?: unknown; code?: unknown; cause?: unknown };
  const errors = err instanceof AggregateError && Array.isArray(err.errors) ? (err.errors as unknown[]) : [];
  const out: { -readonly [K in keyof ErrFields]: ErrFields[K] } = { message: cut(err.message) };
  if (typeof name === 'string' && name !== '') out.type = name;
  if ((typeof code === 'string' && CODE.test(code)) || (typeof code === 'number' && Number.isFinite(code))) {
    out.code = code;
  }
  const linked = cause === undefined ? errors : [cause, ...errors];
  if (linked.length === 0) return out;
  if (depth >= MAX_ERR_DEPTH) return { ...out, truncated: 'depth' };
  const circular = (e: unknown) => typeof e === 'object' && e !== null && path.includes(e);
  if (linked.some(circular)) out.truncated = 'cycle';
  if (cause !== undefined && !circular(cause)) out.cause = fields(cause, path, depth + 1);
  const shown = errors.slice(0, MAX_ERRORS).filter((e) => !circular(e));
  if (shown.length > 0) out.errors = shown.map((e) => fields(e, path, depth + 1));
  return out;
}

function isErrorLike(value: unknown): value is { message: string } {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';
}

/** `String(value)`, as these sites logged before, without letting a hostile toString throw. */
function text(value: unknown): string {
  try {
    return String(value);
  } catch {
    return typeof value;
  }
}

function cut(message: string): string {
  return message.length <= MAX_MESSAGE_CHARS ? message : `${message.slice(0, MAX_MESSAGE_CHARS)}…`;
}
