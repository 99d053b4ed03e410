#!/usr/bin/env node
// The `helm-operator` executable: checks the Node version before any other module is loaded (they need Node
// >= 22.19 and fail obscurely on older ones), turns on Node's compile cache, then runs the CLI (cli.ts) and sets the
// exit code. Must import nothing statically but node-version.ts and Node's own modules.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { nodeTooOld } from './node-version.js';

const tooOld = nodeTooOld(process.versions.node, {
  checkout: existsSync(new URL('../../hack/ensure-node.sh', import.meta.url)),
});
if (tooOld) {
  process.stderr.write(`${tooOld}\n`);
  process.exitCode = 1;
} else {
  // V8's compiled code for our modules, kept in Node's per-user directory under the temporary directory: a second
  // start skips compiling them (NODE_DISABLE_COMPILE_CACHE=1 turns it off; a read-only disk just leaves it off).
  module.enableCompileCache?.();
  const { main } = await import('./cli.js');
  process.exitCode = await main(process.argv.slice(2));
}
