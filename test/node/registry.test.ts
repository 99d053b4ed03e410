// The real node's local registry (hack/testenv/node-up.sh: distribution's registry, plain HTTP on the node's
// address): a scaffolded project's `make docker-push bundle bundle-build bundle-push` pushes its image and its
// bundle's there with podman (the plane's registries.conf marks it insecure), the registry lists both, and a pod runs
// from the image with imagePullPolicy Always, so containerd really pulled it through its hosts.toml. Skips, with the
// reason, where the machine cannot run a node. Run by `make node-test`.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { ROOT } from '../support/operator.js';
import { NODE_BIN, run } from '../support/run.js';

const node = inject('realNode');
const POLL = { timeout: 120_000, interval: 500 } as const;
const rand = () => Math.random().toString(36).slice(2, 8);

/** A value of the plane's env file (DIR/env). */
const planeEnv = (key: string) =>
  readFileSync(join(node.dir, 'env'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${key}=`))
    ?.slice(key.length + 1) ?? '';

describe.skipIf(node.skip !== undefined)(
  `the real node's local registry ${node.skip ?? ''}`,
  { timeout: 300_000 },
  () => {
    const work = mkdtempSync(join(tmpdir(), 'node-registry-'));
    const name = `rg${rand()}`;
    const env = { ...process.env, PATH: `${NODE_BIN}:${process.env.PATH}`, KUBECONFIG: node.kubeconfig };
    const kubectl = (...args: string[]) => run(node.kubectl, args, { env });
    afterAll(async () => {
      await kubectl('delete', 'pod', name, '--ignore-not-found', '--wait=false').catch(() => undefined);
      rmSync(work, { recursive: true, force: true });
    });

    it('takes make docker-push and bundle-push over plain HTTP, and the node runs a pod from the image', async () => {
      const registry = planeEnv('TESTENV_REGISTRY');
      expect(registry).toBe('10.77.0.1:5000');
      const img = `${registry}/${name}/pause:v0.0.1`;
      // The node's pause image (hack/testenv/build-node.sh builds it with podman) stands in for an operator image.
      const pause = readFileSync(join(planeEnv('TESTENV_NODE_BIN'), 'pause.image'), 'utf8').trim();
      await run('podman', ['tag', pause, img]);
      try {
        const project = join(work, 'proj');
        mkdirSync(project);
        await run(
          process.execPath,
          [join(ROOT, 'dist/cmd/main.js'), 'init', '--domain=example.com', `--project-name=${name}`],
          {
            env,
            cwd: project,
          },
        );
        // The CLI the Makefile runs (bundle): this repository's build, as helm-operator on PATH.
        const bin = join(work, 'bin');
        mkdirSync(bin);
        writeFileSync(
          join(bin, 'helm-operator'),
          `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'dist/cmd/main.js')}" "$@"\n`,
        );
        chmodSync(join(bin, 'helm-operator'), 0o755);
        const push = {
          ...env,
          PATH: `${bin}:${env.PATH}`,
          CONTAINERS_REGISTRIES_CONF: planeEnv('TESTENV_REGISTRIES_CONF'),
        };
        // docker-push, then the bundle: its image named from IMG's repository, built from scratch, pushed beside it.
        const targets = ['docker-push', 'bundle', 'bundle-build', 'bundle-push'];
        await run(
          'make',
          ['--no-print-directory', ...targets, 'CONTAINER_TOOL=podman', `KUBECTL=${node.kubectl}`, `IMG=${img}`],
          {
            cwd: project,
            env: push,
          },
        );
      } finally {
        await run('podman', ['rmi', img, `${registry}/${name}/pause-bundle:v0.0.1`]).catch(() => undefined);
      }
      const catalog = await (await fetch(`http://${registry}/v2/_catalog`)).json();
      expect(catalog).toEqual({ repositories: expect.arrayContaining([`${name}/pause`, `${name}/pause-bundle`]) });
      const tags = await (await fetch(`http://${registry}/v2/${name}/pause-bundle/tags/list`)).json();
      expect(tags).toEqual({ name: `${name}/pause-bundle`, tags: ['v0.0.1'] });

      await kubectl(
        'run',
        name,
        `--image=${img}`,
        '--image-pull-policy=Always',
        '--restart=Never',
        '--overrides={"spec":{"terminationGracePeriodSeconds":1}}',
      );
      await vi.waitFor(async () => {
        expect(await kubectl('get', 'pod', name, '-o', 'jsonpath={.status.phase}')).toBe('Running');
      }, POLL);
      // The image the container runs came from the registry (its digest there), not from containerd's store.
      const imageId = await kubectl('get', 'pod', name, '-o', 'jsonpath={.status.containerStatuses[0].imageID}');
      expect(imageId).toMatch(new RegExp(`^${registry.replace(/\./g, '\\.')}/${name}/pause@sha256:[0-9a-f]{64}$`));
    });
  },
);
