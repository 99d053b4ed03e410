// The operator's own version, read once from package.json (src/ and dist/ both sit one level below it).
// Used by the CLI's `version` command and the public API. Never reads anything else.
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export const VERSION: string = pkg.version;
