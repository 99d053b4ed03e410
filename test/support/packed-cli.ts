// The CLI as a new user gets it, for test/integration/packaging/install.test.ts: a clean `git clone` of this
// repository's HEAD commit (uncommitted changes are not in it), the README's Install block (the ```sh block marked
// `<!-- install -->`) run word for word with bash in it, npm's global prefix redirected to a temporary folder; and a
// stand-in npm registry that serves nothing (404 for every request, each one recorded). Writes only under the
// folders it is given; the caller closes the registry.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { markedBlocks } from './markdown.js';
import { ROOT } from './operator.js';
import { NODE_BIN, run } from './run.js';

export interface InstalledCli {
  /** The commit the clone holds. */
  readonly commit: string;
  /** The tarball the README's block packed (in the clone). */
  readonly tgz: string;
  /** What the block printed (its last command is `helm-operator version`). */
  readonly stdout: string;
  /** The prefix whose bin/ holds helm-operator. */
  readonly prefix: string;
  /** Seconds: the clone, the whole block, and what hack/prepack.sh reported of it (`npm ci took N s`, …). */
  readonly figures: Readonly<Record<string, string>>;
}

/**
 * A user's terminal: none of the make variables of an outer make (make test) nor the npm_* variables of an outer npm
 * (npx sets npm_config_prefix and npm_config_local_prefix), npm's global prefix `prefix` (npm_config_prefix), its
 * bin/, Node and `path` first on PATH; `extra` on top.
 */
export function userEnv(
  prefix: string,
  extra: NodeJS.ProcessEnv = {},
  path: readonly string[] = [],
): NodeJS.ProcessEnv {
  const outer = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(npm_|MAKEFLAGS$|MAKELEVEL$|MFLAGS$|MAKEOVERRIDES$)/i.test(k)),
  );
  const dirs = [join(prefix, 'bin'), NODE_BIN, ...path, outer.PATH ?? ''];
  return { ...outer, PATH: dirs.join(':'), npm_config_prefix: prefix, ...extra };
}

/** Clones HEAD into `clone` and runs the README's Install block there, installing into `prefix`. */
export async function installFromCleanClone(clone: string, prefix: string): Promise<InstalledCli> {
  const blocks = markedBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'install');
  if (blocks.length !== 1) throw new Error(`README.md has ${blocks.length} <!-- install --> blocks, not 1`);
  const script = blocks[0]?.script ?? '';
  const tarball = /npm install -g \.\/(\S+\.tgz)/.exec(script)?.[1];
  if (tarball === undefined) throw new Error('the README install block has no `npm install -g ./<name>.tgz`');
  const t0 = performance.now();
  await run('git', ['clone', '--quiet', ROOT, clone]);
  const commit = (await run('git', ['rev-parse', 'HEAD'], { cwd: clone })).trim();
  const t1 = performance.now();
  // The block's stderr (npm's and the prepack's progress) into a file, for its figures.
  const log = join(clone, '..', 'install-block.log');
  // Each command of the block traced with its start time (bash's xtrace, to the log), for the figures.
  const traced = `exec 2>${JSON.stringify(log)}\nPS4='+ $EPOCHREALTIME '\nset -x\n${script}`;
  const stdout = await run('bash', ['-euo', 'pipefail', '-c', traced], {
    cwd: clone,
    env: userEnv(prefix),
  }).catch((err: unknown) => {
    const tail = readFileSync(log, 'utf8').split('\n').slice(-30).join('\n');
    throw new Error(`the README's install block failed: ${err instanceof Error ? err.message : String(err)}\n${tail}`);
  });
  const t2 = performance.now();
  const lines = readFileSync(log, 'utf8').split('\n');
  const prepack = lines.filter((l) => /^prepack: .* took \d+ s$/.test(l));
  // `+ <start> <command>` per command; each one lasted until the next started, the last until the block ended.
  const starts = lines.flatMap((l) => {
    const m = /^\+ (\d+\.\d+) (.*)$/.exec(l);
    return m ? [{ at: Number(m[1]) * 1000, command: m[2] ?? '' }] : [];
  });
  const end = starts[0] === undefined ? 0 : starts[0].at + (t2 - t1);
  const commands = starts.map((c, i) => [c.command, `${(((starts[i + 1]?.at ?? end) - c.at) / 1000).toFixed(1)} s`]);
  return {
    commit,
    tgz: join(clone, tarball),
    stdout,
    prefix,
    figures: {
      'git clone': `${((t1 - t0) / 1000).toFixed(1)} s`,
      "the README's install block (npm pack with its prepack, npm install -g, helm-operator version)": `${(
        (t2 - t1) / 1000
      ).toFixed(1)} s`,
      ...Object.fromEntries(commands),
      ...Object.fromEntries(prepack.map((l) => [`  of which ${l.replace(/ took.*/, '')}`, l.replace(/.* took /, '')])),
    },
  };
}

export interface EmptyRegistry {
  /** For npm_config_registry. */
  readonly url: string;
  /** The paths asked for, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** An npm registry on 127.0.0.1 that has no package: every request gets npm's 404 answer. */
export async function emptyRegistry(): Promise<EmptyRegistry> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the registry stand-in has no port');
  return {
    url: `http://127.0.0.1:${address.port}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
