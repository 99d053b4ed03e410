import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKubeClient } from './client.js';

// A local API server that refuses the token "revoked": the client re-reads its token file after the first 401.
describe('a 401 from the API server', () => {
  let dir: string;
  let server: Server;
  let seen: string[];
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'client-401-'));
    seen = [];
    server = createServer((req, res) => {
      const token = (req.headers.authorization ?? '').replace('Bearer ', '');
      seen.push(token);
      if (token === 'revoked') {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"kind":"Status","code":401}');
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"ns"}}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterEach(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('re-reads the token file once and sends every refused request again, even several refused at once', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'revoked');
    const { port } = server.address() as AddressInfo;
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:${port}\n    insecure-skip-tls-verify: true\nusers:\n- name: u\n  user:\n    tokenFile: ${tokenFile}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n`,
    );
    const { client } = createKubeClient({ env: {}, kubeconfigPath: kubeconfig });
    const res = { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
    const signal = new AbortController().signal;
    writeFileSync(tokenFile, 'fresh'); // rotated on disk; the client still holds "revoked" for a minute
    const got = await Promise.all([1, 2, 3].map(() => client.get(res, 'ns', 'x', { signal })));
    expect(got.map((o) => o.metadata.name)).toEqual(['x', 'x', 'x']);
    expect(seen.filter((t) => t === 'revoked')).toHaveLength(3);
    expect(seen.filter((t) => t === 'fresh')).toHaveLength(3);
  });
});
