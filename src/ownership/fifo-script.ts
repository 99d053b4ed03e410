// The bash script helm runs as its post-renderer, as text: the operator writes it into its private post-render
// directory at startup (fifo-server.ts) and helm runs it as `bash SCRIPT DIR ARGS…` (cmd/cli.ts builds that).
// Pure strings; the protocol it speaks is documented once, here, and served by fifo-server.ts and proc-call.ts.

/** The operator's request FIFO inside the post-render directory: one line per call (see postRenderScript). */
export const REQUESTS_FIFO = 'requests';
/** A FIFO nobody writes to: each call blocks reading it until the operator's signal, or its timeout. */
export const WAIT_FIFO = 'wait';
/** The script's file name inside the post-render directory. */
export const SCRIPT_FILE = 'post-render.sh';
/** Separates the fields of a request line: the args are identities (ownership/context.ts), never holding one. */
export const FIELD_SEPARATOR = '\t';

/**
 * The script's copy of its stdout, which the operator writes to (/proc/PID/fd/4): fd 1 itself is the request FIFO
 * while the request is being written, and the operator may already be answering then.
 */
export const STDOUT_COPY_FD = 4;

/** The interpreter helm runs: the script needs no executable bit, so a noexec /tmp does not matter. */
export const SCRIPT_SHELL = '/bin/bash';

/**
 * The post-renderer: bash builtins only, no child process. One call (helm gives it pipes as stdin, stdout and
 * stderr; only the operator's uid can write to DIR, the operator's 0700 directory):
 * 1. traps SIGUSR1 (exit 0) and SIGUSR2 (exit 1), opens DIR/wait read-write (so the open never blocks) and
 *    copies its stdout to fd STDOUT_COPY_FD;
 * 2. writes one line to DIR/requests: its PID and the per-call args, separated by tabs. bash's stdout is line
 *    buffered, so the line's only newline, its last byte, makes it one write (under PIPE_BUF: concurrent calls
 *    never interleave);
 * 3. blocks reading DIR/wait, in slices of WAIT_SLICE_SECONDS. Meanwhile the operator opens the script's stdin through /proc/PID/fd/0, reads the
 *    manifest until helm closes it, writes the transformed manifest into the script's stdout (/proc/PID/fd/4) and
 *    sends SIGUSR1; on an error it writes its message into the script's stderr (/proc/PID/fd/2) and sends SIGUSR2.
 *    helm reads stdout until both the script and the operator have closed it.
 * 4. no signal within `waitSeconds`: says so on stderr and exits 1.
 * bash runs a trap once the builtin that is running returns. A signal that lands after bash's last check and before
 * `read` blocks would wait for the read's timeout (in a loaded machine's test suite, a call then hung for the whole
 * render timeout); the slices bound that to one slice.
 */
/** How long one blocking read of DIR/wait lasts: the latest a signal that raced the read is acted on. */
export const WAIT_SLICE_SECONDS = 0.1;

export function postRenderScript(o: { readonly waitSeconds: number }): string {
  const wait = Math.max(1, Math.ceil(o.waitSeconds));
  return `# helm-operator post-renderer, written by the operator at startup (src/ownership/fifo-script.ts).
# Usage: bash ${SCRIPT_FILE} DIR [ARGS...]: hands its stdin and stdout to the operator listening on DIR/${REQUESTS_FIFO}.
set -u
say() { printf 'helm-operator post-render: %s\\n' "$1" >&2; }
trap 'exit 0' USR1
trap 'exit 1' USR2
dir=\${1:?the post-render directory}
shift
if [[ ! -p $dir/${REQUESTS_FIFO} ]]; then say "the operator is not running (no $dir/${REQUESTS_FIFO})"; exit 1; fi
if [[ ! -p /dev/stdin || ! -p /dev/stdout ]]; then say "stdin and stdout must be pipes, as helm gives them"; exit 1; fi
exec 3<>"$dir/${WAIT_FIFO}" ${STDOUT_COPY_FD}>&1 || { say "cannot open $dir/${WAIT_FIFO}"; exit 1; }
IFS=$'\\t' tab=$'\\t'
printf '%s\\n' "$$\${1+$tab$*}" 1<>"$dir/${REQUESTS_FIFO}" || { say "cannot reach the operator"; exit 1; }
for ((n = ${Math.round(wait / WAIT_SLICE_SECONDS)}; n > 0; n--)); do read -r -t ${WAIT_SLICE_SECONDS} -u 3 _; done
say "no answer from the operator within ${wait}s"
exit 1
`;
}
