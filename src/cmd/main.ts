#!/usr/bin/env node
// The `helm-operator` CLI entry point (composition root): the only module that reads argv and exits the process.
// `version` works today; `run` reports clearly that the controller is not built yet.
import { VERSION } from '../version.js';

const USAGE = `Usage: helm-operator <command>

Commands:
  run       run the operator (not yet implemented)
  version   print the operator's version
`;

function main(argv: readonly string[]): number {
  const [cmd] = argv;
  switch (cmd) {
    case 'version':
      process.stdout.write(`helm-operator-ts ${VERSION}\n`);
      return 0;
    case 'run':
      process.stderr.write(
        'helm-operator run: not yet implemented. This build holds the project foundation (test control plane, ' +
          'helm built from Go modules); the controller arrives with the "end-to-end operator" issue.\n',
      );
      return 2;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return cmd === undefined ? 2 : 0;
    default:
      process.stderr.write(`helm-operator: unknown command ${JSON.stringify(cmd)}\n\n${USAGE}`);
      return 2;
  }
}

process.exitCode = main(process.argv.slice(2));
