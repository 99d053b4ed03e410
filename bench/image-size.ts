// Prints an image's size as markdown: uncompressed (the container tool's figure) and compressed as a registry stores
// it (the image pushed to a temporary OCI layout with gzip layers), and the same two figures per layer, oldest first,
// named by the Dockerfile step that made it. Run by hack/image-test.sh: `node bench/image-size.ts podman IMAGE`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Descriptor {
  readonly digest: string;
  readonly size: number;
}
interface HistoryEntry {
  readonly created_by?: string;
  readonly empty_layer?: boolean;
}

const [tool = 'podman', image] = process.argv.slice(2);
if (!image) throw new Error('usage: node bench/image-size.ts TOOL IMAGE');
const sh = (args: string[]) => execFileSync(tool, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** "COPY file:<hash> in /usr/local/bin/node" → "COPY /usr/local/bin/node"; the shell prefix of RUN dropped. */
function step(createdBy: string): string {
  const s = createdBy
    .replace(/^\/bin\/sh -c #\(nop\) /, '')
    .replace(/^\/bin\/sh -c /, 'RUN ')
    .replace(/^(ADD|COPY) (file|dir):[0-9a-f]+ in /, '$1 ')
    .trim();
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

const dir = mkdtempSync(join(tmpdir(), 'image-size-'));
try {
  sh(['push', '--quiet', '--compression-format=gzip', image, `oci:${dir}:image`]);
  const blob = <T>(d: Descriptor) => JSON.parse(readFileSync(join(dir, 'blobs', ...d.digest.split(':')), 'utf8')) as T;
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { manifests: Descriptor[] };
  const manifest = blob<{ config: Descriptor; layers: Descriptor[] }>(index.manifests[0] as Descriptor);
  const history = blob<{ history?: HistoryEntry[] }>(manifest.config).history ?? [];
  // The tool's own per-step sizes (uncompressed), newest first in its output: reversed to the config's order.
  const local = (JSON.parse(sh(['history', '--format', 'json', image])) as { size: number }[]).reverse();
  const layered = history.map((h, i) => ({ h, bytes: local[i]?.size ?? 0 })).filter(({ h }) => !h.empty_layer);
  const compressed = manifest.layers.reduce((n, l) => n + l.size, manifest.config.size);
  const uncompressed = Number(sh(['image', 'inspect', '--format', '{{.Size}}', image]).trim());
  console.log('| image | uncompressed | compressed (gzip, as pushed) |');
  console.log('|---|---|---|');
  console.log(`| ${image} | ${mb(uncompressed)} | ${mb(compressed)} |`);
  console.log('');
  console.log('| layer (oldest first) | uncompressed | compressed |');
  console.log('|---|---|---|');
  if (layered.length !== manifest.layers.length) {
    console.log(`| (the image's history names ${layered.length} layers, its manifest ${manifest.layers.length}) | | |`);
  }
  manifest.layers.forEach((l, i) => {
    const named = layered.length === manifest.layers.length ? layered[i] : undefined;
    console.log(
      `| ${named ? step(named.h.created_by ?? '') : `layer ${i + 1}`} | ${named ? mb(named.bytes) : ''} | ${mb(l.size)} |`,
    );
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
