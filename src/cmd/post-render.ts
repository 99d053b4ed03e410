// `helm-operator post-render --socket=PATH [args…]`: the executable helm runs as its post-renderer. Reads the
// rendered manifest from stdin, hands it with the args to the running operator over its unix socket, and prints
// the answer. Called by helm (3: --post-renderer, 4: plugin). Never logs or echoes the manifest.
import { request } from 'node:http';

export interface PostRenderIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

export async function postRender(argv: readonly string[], io: PostRenderIo): Promise<number> {
  const socketArg = argv.find((a) => a.startsWith('--socket='));
  if (!socketArg) {
    io.stderr.write('helm-operator post-render: --socket=PATH is required (helm-operator run passes it)\n');
    return 2;
  }
  const args = argv.filter((a) => a !== socketArg);
  const body = JSON.stringify({ args, manifest: await readAll(io.stdin) });
  try {
    const { status, text } = await post(socketArg.slice('--socket='.length), body);
    if (status !== 200) {
      io.stderr.write(`helm-operator post-render: ${text.trim()}\n`);
      return 1;
    }
    io.stdout.write(text);
    return 0;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    io.stderr.write(`helm-operator post-render: cannot reach the operator: ${message}\n`);
    return 1;
  }
}

/** A whole stream as UTF-8 text (stdin here; the tool commands' `-f -` too). */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function post(socketPath: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, path: '/post-render', method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
