#!/usr/bin/env node
// The `helm-operator` executable: checks the Node version before any other module is loaded (they need Node
// >= 22.19 and fail obscurely on older ones), then runs the CLI (cli.ts) and sets the exit code.
// Must import nothing statically but node-version.ts.
import { nodeTooOld } from './node-version.js';

const tooOld = nodeTooOld(process.versions.node);
if (tooOld) {
  process.stderr.write(`${tooOld}\n`);
  process.exitCode = 1;
} else {
  const { main } = await import('./cli.js');
  process.exitCode = await main(process.argv.slice(2));
}
