// `helm-operator pack [--destination=DIR]`: writes the running CLI's own npm package (<name>-<version>.tgz, as npm
// pack makes it) into DIR, so that `make docker-build` puts the CLI the user runs into the image's build context with
// no registry and no npm. Called by tools.ts (its runPack); reads no process.* (cwd and streams come in).

import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packPackage } from '../scaffold/pack.js';
import { parseToolFlags } from './flags/tool.js';

export const PACK_USAGE = `Usage: helm-operator pack [--destination=DIR]

Writes this helm-operator's own npm package, helm-operator-ts-<version>.tgz (what npm pack makes of it), into DIR
(default: the working directory) and prints its path. A project's \`make docker-build\` runs it to pack the CLI it
runs into bin/image/ for the image; installing that file with npm gives the same CLI.
`;

/** What the command is handed (a part of tools.ts's ToolIo, not imported: tools.ts imports this module). */
interface PackIo {
  readonly cwd: string;
  readonly stdout: { write(s: string): unknown };
  readonly stderr: { write(s: string): unknown };
}

/** The folder of the package this module was loaded from: dist/cmd/ (or src/cmd/ under the tests) is two below it. */
export const OWN_PACKAGE = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export async function runPack(argv: readonly string[], io: PackIo, signal: AbortSignal): Promise<number> {
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
