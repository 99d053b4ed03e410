// `helm-operator pack [--destination=DIR]`: writes the running CLI's own npm package (<name>-<version>.tgz, as npm
// pack makes it) into DIR, so that `make docker-build` puts the CLI the user runs into the image's build context with
// no registry and no npm. Called by cli.ts through tools.ts; reads no process.* (env, cwd and streams come in).

import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packPackage } from '../scaffold/pack.js';
import { parseToolFlags } from './flags/tool.js';
import type { ToolIo } from './tools.js';

export const PACK_USAGE = `Usage: helm-operator pack [--destination=DIR]

Writes this helm-operator's own npm package, helm-operator-ts-<version>.tgz (what npm pack makes of it), into DIR
(default: the working directory) and prints its path. A project's \`make docker-build\` runs it to pack the CLI it
runs into bin/image/ for the image; installing that file with npm gives the same CLI.
`;

/** The folder of the package this module was loaded from: dist/cmd/ (or src/cmd/ under the tests) is two below it. */
export const OWN_PACKAGE = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export async function runPack(argv: readonly string[], io: ToolIo, signal: AbortSignal): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(PACK_USAGE);
    return 0;
  }
  const flags = parseToolFlags('pack', argv, { destination: 'string' });
  const dest = resolve(io.cwd, String(flags.get('destination') ?? '.'));
  const packed = await packPackage(OWN_PACKAGE, dest, signal);
  io.stderr.write(`packed ${packed.name}@${packed.version} (${packed.files.length} files) from ${OWN_PACKAGE}\n`);
  io.stdout.write(`${packed.file}\n`);
  return 0;
}
