import { describe, expect, it } from 'vitest';
import { helmCommandError } from '../../test/fakes/helm.js';

const failed = (stderr: string) => helmCommandError('install', stderr);
const PREFIX = 'helm install of release apps/web failed with exit code 1: ';

describe('HelmCommandError', () => {
  it("ends its message with helm's error line", () => {
    expect(failed('W1201 warning: x\nError: INSTALLATION FAILED: boom\n').message).toBe(
      `${PREFIX}Error: INSTALLATION FAILED: boom`,
    );
  });

  it('keeps the lines that continue the error: which hook failed, and why', () => {
    const v3 =
      'Error: INSTALLATION FAILED: failed pre-install: 1 error occurred:\n\t* timed out waiting for the condition\n\n';
    expect(failed(v3).message).toBe(
      `${PREFIX}Error: INSTALLATION FAILED: failed pre-install: 1 error occurred: * timed out waiting for the condition`,
    );
    const v4 =
      'Error: INSTALLATION FAILED: failed pre-install: resource Job/apps/web-migrate not ready. status: InProgress, message: Job in progress\ncontext deadline exceeded\n';
    expect(failed(v4).message).toBe(
      `${PREFIX}Error: INSTALLATION FAILED: failed pre-install: resource Job/apps/web-migrate not ready. status: InProgress, message: Job in progress: context deadline exceeded`,
    );
  });

  it('uses the last line when helm printed no Error: line', () => {
    expect(failed('a\nsomething broke\n').message).toBe(`${PREFIX}something broke`);
  });
});
