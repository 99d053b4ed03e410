// The bash script helm runs as its post-renderer, as text: the operator writes it into its private post-render
// directory at startup (fifo-server.ts) and helm runs it as `bash SCRIPT DIR ARGS…` (cmd/cli.ts builds that).
// Pure strings; the protocol it speaks is documented once, here, and served by fifo-server.ts.

/** The operator's request FIFO inside the post-render directory: one line, a call's file prefix, per request. */
export const REQUESTS_FIFO = 'requests';
/** The script's file name inside the post-render directory. */
export const SCRIPT_FILE = 'post-render.sh';
/** A call's file prefix inside the post-render directory: `c<pid>-<random>`. */
export const CALL_PREFIX = /^c[0-9]+-[0-9]+$/;

/** The interpreter helm runs: the script needs no executable bit, so a noexec /tmp does not matter. */
export const SCRIPT_SHELL = '/bin/bash';

/**
 * The post-renderer (bash; coreutils `mkfifo` and `cat` are its only children). One call, in the operator's 0700
 * directory DIR (only the operator's uid can read a request or write an answer there):
 * 1. creates `P.reply` (a FIFO, held open read-write so that neither side's open blocks) and opens `P.out`;
 * 2. writes the per-call args (NUL-terminated) to `P.args` and the manifest from stdin to `P.manifest`;
 * 3. writes the line `P` to DIR/requests (one write under PIPE_BUF: concurrent calls never interleave);
 * 4. waits up to `waitSeconds` for one line on `P.reply`: `ok` prints `P.out` (the transformed manifest) on stdout,
 *    anything else prints it (the operator's error message) on stderr and exits 1.
 * The operator removes P.* once it has answered; the script removes them itself when it fails before that.
 */
export function postRenderScript(o: { readonly waitSeconds: number }): string {
  const wait = Math.max(1, Math.ceil(o.waitSeconds));
  return `# helm-operator post-renderer, written by the operator at startup (src/ownership/fifo-script.ts).
# Usage: bash ${SCRIPT_FILE} DIR [ARGS...]: hands stdin to the operator listening on DIR/${REQUESTS_FIFO}.
set -u
say() { printf 'helm-operator post-render: %s\\n' "$1" >&2; }
dir=\${1:?the post-render directory}
shift
if [[ ! -p $dir/${REQUESTS_FIFO} ]]; then say "the operator is not running (no $dir/${REQUESTS_FIFO})"; exit 1; fi
p=$dir/c$$-$RANDOM$RANDOM
mkfifo -m 600 -- "$p.reply" || { say "cannot create $p.reply"; exit 1; }
fail() { say "$1"; exec 4>&- 5>&-; rm -f -- "$p.reply" "$p.out" "$p.args" "$p.manifest"; exit 1; }
exec 4<>"$p.reply" 5<>"$p.out" || fail "cannot open $p.out"
{ if (($# > 0)); then printf '%s\\0' "$@"; fi; } >"$p.args" || fail "cannot write $p.args"
cat >"$p.manifest" || fail "cannot read the manifest"
printf '%s\\n' "$p" 1<>"$dir/${REQUESTS_FIFO}" || fail "cannot reach the operator"
IFS= read -r -t ${wait} status <&4 || fail "no answer from the operator within ${wait}s"
exec 4>&-
if [[ $status == ok ]]; then exec cat <&5; fi
printf 'helm-operator post-render: ' >&2
cat <&5 >&2
exit 1
`;
}
