// Three projects: `unit` (no cluster, fast), `integration` (one real control plane per run, started by the
// global setup and always torn down) and `image` (the built image as a container; `make image-test`).
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
    ],
  },
});
