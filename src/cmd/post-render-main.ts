#!/usr/bin/env node
// The entry helm executes as its post-renderer (see post-render.ts): a separate, tiny entry point so that each
// helm install or upgrade pays only for node:http, not for loading the whole operator. Reads argv/stdio only.
import { postRender } from './post-render.js';

process.exitCode = await postRender(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
