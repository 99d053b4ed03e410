import { describe, expect, it } from 'vitest';
import { OperatorError } from '../core/errors.js';
import {
  AlreadyExistsError,
  ConflictError,
  ForbiddenError,
  GoneError,
  InvalidError,
  KubeApiError,
  KubeTransportError,
  kubeApiError,
  kubeApiErrorFromStatus,
  NotFoundError,
  UnauthorizedError,
  unlessNotFound,
} from './errors.js';

const status = (code: number, reason: string, message: string) => ({
  kind: 'Status',
  status: 'Failure',
  code,
  reason,
  message,
});

describe('kubeApiError', () => {
  it.each([
    [401, 'Unauthorized', UnauthorizedError, 'KUBE_UNAUTHORIZED'],
    [403, 'Forbidden', ForbiddenError, 'KUBE_FORBIDDEN'],
    [404, 'NotFound', NotFoundError, 'KUBE_NOT_FOUND'],
    [409, 'Conflict', ConflictError, 'KUBE_CONFLICT'],
    [409, 'AlreadyExists', AlreadyExistsError, 'KUBE_ALREADY_EXISTS'],
    [410, 'Expired', GoneError, 'KUBE_GONE'],
    [422, 'Invalid', InvalidError, 'KUBE_INVALID'],
    [500, 'InternalError', KubeApiError, 'KUBE_API_ERROR'],
    [429, 'TooManyRequests', KubeApiError, 'KUBE_API_ERROR'],
  ])('maps HTTP %i %s to its class and code', (code, reason, type, errorCode) => {
    const err = kubeApiError(code, status(code, reason, 'msg'));
    expect(err).toBeInstanceOf(type);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toBeInstanceOf(OperatorError);
    expect(err.code).toBe(errorCode);
    expect(err.status).toBe(code);
    expect(err.reason).toBe(reason);
    expect(err.name).toBe(type.name);
  });

  it('does not treat AlreadyExists as a retryable conflict', () => {
    expect(kubeApiError(409, status(409, 'AlreadyExists', 'x'))).not.toBeInstanceOf(ConflictError);
  });

  it('puts the operation, status, reason and server message in the message, and keeps the cause', () => {
    const cause = new Error('underlying');
    const err = kubeApiError(
      404,
      status(404, 'NotFound', 'configmaps "a" not found'),
      'GET /api/v1/namespaces/x/configmaps/a',
      {
        cause,
      },
    );
    expect(err.message).toBe('GET /api/v1/namespaces/x/configmaps/a: 404 NotFound: configmaps "a" not found');
    expect(err.serverMessage).toBe('configmaps "a" not found');
    expect(err.operation).toBe('GET /api/v1/namespaces/x/configmaps/a');
    expect(err.cause).toBe(cause);
  });

  it('derives the reason from the status when the body is not a Status', () => {
    const err = kubeApiError(403, '<html>denied by proxy</html>\n');
    expect(err).toBeInstanceOf(ForbiddenError);
    expect(err.reason).toBe('Forbidden');
    expect(err.serverMessage).toBe('<html>denied by proxy</html>');
    expect(kubeApiError(418, undefined).reason).toBe('Unknown');
  });

  it('reads retryAfterSeconds from the Status details', () => {
    const err = kubeApiError(429, {
      ...status(429, 'TooManyRequests', 'slow down'),
      details: { retryAfterSeconds: 3 },
    });
    expect(err.retryAfterSeconds).toBe(3);
  });

  it('cuts very long server messages', () => {
    const err = kubeApiError(500, status(500, 'InternalError', 'x'.repeat(5000)));
    expect(err.serverMessage.length).toBeLessThanOrEqual(1025);
  });
});

describe('kubeApiErrorFromStatus', () => {
  it('maps a watch ERROR event by its code, and treats a missing code as 500', () => {
    expect(kubeApiErrorFromStatus({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old' })).toBeInstanceOf(
      GoneError,
    );
    const err = kubeApiErrorFromStatus({ kind: 'Status', message: 'odd' });
    expect(err.status).toBe(500);
    expect(err.reason).toBe('InternalError');
  });
});

describe('KubeTransportError', () => {
  it('has its own code, names the operation and keeps the cause', () => {
    const cause = new Error('ECONNRESET');
    const err = new KubeTransportError('socket hang up', { operation: 'GET /version', cause });
    expect(err.code).toBe('KUBE_TRANSPORT');
    expect(err.message).toBe('GET /version: socket hang up');
    expect(err.cause).toBe(cause);
    expect(err).not.toBeInstanceOf(KubeApiError);
  });
});

describe('unlessNotFound', () => {
  it('gives the answer, undefined for a NotFound, and throws any other error as it is', async () => {
    await expect(unlessNotFound(Promise.resolve(3))).resolves.toBe(3);
    await expect(unlessNotFound(Promise.reject(new NotFoundError({ status: 404 })))).resolves.toBeUndefined();
    const forbidden = new ForbiddenError({ status: 403 });
    await expect(unlessNotFound(Promise.reject(forbidden))).rejects.toBe(forbidden);
  });
});
