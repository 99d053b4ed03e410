// Four projects: `unit` (no cluster, fast), `integration` (one real control plane per run, started by the
// global setup and always torn down), `image` (the built image as a container; `make image-test`) and `node` (the
// users' workflow on a plane with a real node; `make node-test`).
// TEST_CLUSTER picks the cluster: local (default), existing or k3s.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts', 'test/support/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          maxWorkers: 2,
        },
      },
      {
        // `make image-test` only (hack/image-test.sh builds the image first): the image run as a container.
        test: {
          name: 'image',
          include: ['test/image/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          maxWorkers: 1,
        },
      },
      {
        // `make node-test` only: the plane with a real node (kubelet, containerd), started by its own global setup.
        test: {
          name: 'node',
          include: ['test/node/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/node/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 600_000,
          maxWorkers: 1,
        },
      },
    ],
  },
});
