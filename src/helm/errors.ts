// Errors raised while reading Helm's own storage (release Secrets) without the helm binary, while running the helm
// CLI and reading its output, and while parsing a release manifest. Thrown by helm/ (release.ts, cli.ts, output.ts,
// manifest-yaml.ts); callers match on `code`, never on message text. Messages never carry values, config or manifest.
import { OperatorError } from '../core/errors.js';

/** A Helm release Secret (or its payload) could not be decoded into a release. Retried like any non-terminal error. */
export class ReleaseDecodeError extends OperatorError {
  readonly code = 'HELM_RELEASE_DECODE';
  /** `namespace/name` (or just `name`) of the Secret, when the caller knew it. */
  readonly secret: string | undefined;
  /** Short, content-free description of what was wrong. */
  readonly reason: string;

  constructor(reason: string, options?: ErrorOptions & { secret?: string | undefined }) {
    const secret = options?.secret;
    const subject = secret === undefined ? 'Helm release payload' : `Helm release secret ${secret}`;
    super(`cannot decode ${subject}: ${reason}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.secret = secret;
    this.reason = reason;
  }
}

/** What a failed helm process looked like; every text field is already scrubbed of values by the caller. */
export interface HelmCommandFailure {
  /** The helm subcommand, e.g. `upgrade`. */
  readonly command: string;
  readonly release?: string | undefined;
  readonly namespace?: string | undefined;
  /** The argv passed to helm, with the values file path replaced by `<values>`. */
  readonly args: readonly string[];
  readonly exitCode: number | undefined;
  /** The signal that ended helm, e.g. `SIGTERM`, when it did not exit on its own. */
  readonly signal: string | undefined;
  /** The last 4 KiB of helm's stderr, values redacted. */
  readonly stderr: string;
  /** True when the caller's AbortSignal stopped helm. */
  readonly canceled: boolean;
  /** True when helm ran longer than the per-process timeout. */
  readonly timedOut: boolean;
  /** True when helm ignored SIGTERM for the whole grace period and was SIGKILLed. */
  readonly forceKilled: boolean;
  /**
   * An uninstall of several releases (`also`): those helm reported uninstalled before it stopped. `release` is then
   * the one it stopped at. @default absent: a command of one release
   */
  readonly uninstalled?: readonly string[];
}

/** A helm process failed, was canceled or timed out. `cause` is the (scrubbed) ProcessFailure or the abort reason. */
export class HelmCommandError extends OperatorError {
  readonly code = 'HELM_COMMAND_FAILED';
  /** What ran and how it ended (command, release, args, exit code or signal, stderr, canceled or timed out). */
  readonly failure: HelmCommandFailure;

  constructor(failure: HelmCommandFailure, options?: ErrorOptions) {
    super(helmCommandMessage(failure), options);
    this.failure = failure;
  }
}

function helmCommandMessage(f: HelmCommandFailure): string {
  const subject =
    f.release === undefined
      ? `helm ${f.command}`
      : `helm ${f.command} of release ${f.namespace === undefined ? '' : `${f.namespace}/`}${f.release}`;
  const outcome = f.canceled
    ? 'was canceled'
    : f.timedOut
      ? 'timed out'
      : f.exitCode !== undefined
        ? `failed with exit code ${f.exitCode}`
        : f.signal !== undefined
          ? `was killed by ${f.signal}`
          : 'failed';
  const error = helmErrorLine(f.stderr);
  const detail = error === undefined ? '' : `: ${error.length > 500 ? `${error.slice(0, 499)}…` : error}`;
  return `${subject} ${outcome}${f.forceKilled ? ' (SIGKILLed after the grace period)' : ''}${detail}`;
}

/**
 * helm's own error, enough for a status condition: from the last line starting `Error:` to the end of stderr, since
 * helm continues an error on further lines ("Error: INSTALLATION FAILED: failed pre-install: 1 error occurred:" then
 * "* timed out waiting for the condition" in helm 3; "... Job/ns/x not ready ..." then "context deadline exceeded"
 * in helm 4), else the last line. Lines are joined Go-style, with ": " unless the previous one ends with ":".
 */
function helmErrorLine(stderr: string): string | undefined {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const from = lines.findLastIndex((l) => l.startsWith('Error:'));
  if (from < 0) return lines.at(-1);
  return lines.slice(from).reduce((text, line) => `${text}${text.endsWith(':') ? ' ' : ': '}${line}`);
}

/** The helm binary does not exist (spawn failed with ENOENT). */
export class HelmNotFoundError extends OperatorError {
  readonly code = 'HELM_NOT_FOUND';
  readonly binary: string;

  constructor(binary: string, options?: ErrorOptions) {
    super(
      `helm binary ${JSON.stringify(binary)} not found: set --helm-binary or HELM_BINARY to its path, or put helm on PATH`,
      options,
    );
    this.binary = binary;
  }
}

/** The helm binary is older than the oldest supported version, or its version could not be read. */
export class HelmVersionError extends OperatorError {
  readonly code = 'HELM_UNSUPPORTED_VERSION';
  /** The version helm reported, or `unknown`. */
  readonly version: string;

  constructor(version: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.version = version;
  }
}

/** helm succeeded but its `--output json` could not be read as a release. Never carries the output itself. */
export class HelmOutputError extends OperatorError {
  readonly code = 'HELM_OUTPUT_INVALID';
  readonly command: string;
  readonly release: string;

  constructor(command: string, release: string, reason: string, options?: ErrorOptions) {
    super(`helm ${command} of release ${release} printed an unreadable result: ${reason}`, options);
    this.command = command;
    this.release = release;
  }
}

/** A manifest document is not valid YAML. Carries only positions and the template path, never manifest text. */
export class ManifestParseError extends OperatorError {
  readonly code = 'HELM_MANIFEST_INVALID';
  /** The `# Source:` template of the broken document, when the manifest names one. */
  readonly source: string | undefined;
  /** 1-based line and column in the whole manifest, when the parser reported a position. */
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(init: { source: string | undefined; line: number | undefined; column: number | undefined; why: string }) {
    const what = init.source === undefined ? 'a release manifest document' : `template ${init.source}`;
    const where = init.line === undefined ? '' : ` at manifest line ${init.line}, column ${init.column ?? 1}`;
    super(`cannot parse the release manifest: ${what} is not valid YAML${where}${init.why}`);
    this.source = init.source;
    this.line = init.line;
    this.column = init.column;
  }
}
