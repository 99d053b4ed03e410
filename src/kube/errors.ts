// The kube/ error tree: KubeApiError (an HTTP error status from the API server, mapped to a subclass by status
// and reason) and KubeTransportError (the request never got a usable answer). Thrown by kube/rest.ts and read
// by every caller. Must never embed request bodies (they may hold Secret data); only the server's own message.

import type { ErrorCode } from '../core/codes.js';
import { OperatorError } from '../core/errors.js';
import type { KubeStatus } from './types.js';

/** Server messages longer than this are cut, so one odd response cannot flood a log line. */
const MAX_SERVER_MESSAGE = 1024;

export interface KubeApiErrorInit {
  /** The HTTP status (or a watch ERROR event's `code`). */
  readonly status: number;
  /** The Status `reason` (e.g. `NotFound`, `AlreadyExists`, `Expired`). @default derived from `status` */
  readonly reason?: string;
  /** The Status `message`, or the start of a non-JSON response body. @default '' */
  readonly serverMessage?: string;
  /** What was attempted, e.g. `GET /api/v1/namespaces/a/configmaps/b` (no query, no body). @default none */
  readonly operation?: string;
  /** From the Status `details.retryAfterSeconds` (429, 503, some 500s). @default none */
  readonly retryAfterSeconds?: number;
}

/** The API server answered with an error status. `status` is the HTTP status, `reason` the Status reason. */
export class KubeApiError extends OperatorError {
  readonly code: ErrorCode = 'KUBE_API_ERROR';
  readonly status: number;
  readonly reason: string;
  readonly serverMessage: string;
  readonly operation: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(init: KubeApiErrorInit, options?: ErrorOptions) {
    const reason = init.reason ?? defaultReason(init.status);
    const serverMessage = truncate(init.serverMessage ?? '');
    const where = init.operation === undefined ? '' : `${init.operation}: `;
    super(`${where}${init.status} ${reason}${serverMessage === '' ? '' : `: ${serverMessage}`}`, options);
    this.status = init.status;
    this.reason = reason;
    this.serverMessage = serverMessage;
    this.operation = init.operation;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

export class UnauthorizedError extends KubeApiError {
  override readonly code = 'KUBE_UNAUTHORIZED';
}
export class ForbiddenError extends KubeApiError {
  override readonly code = 'KUBE_FORBIDDEN';
}
export class NotFoundError extends KubeApiError {
  override readonly code = 'KUBE_NOT_FOUND';
}
/** The answer of `request`, or undefined when the server says NotFound; any other error is thrown as it is. */
export async function unlessNotFound<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** 409 with any reason but AlreadyExists: usually a stale resourceVersion on update. Re-read and retry. */
export class ConflictError extends KubeApiError {
  override readonly code = 'KUBE_CONFLICT';
}
/** 409 AlreadyExists on create. Deliberately not a ConflictError: retrying the same create cannot succeed. */
export class AlreadyExistsError extends KubeApiError {
  override readonly code = 'KUBE_ALREADY_EXISTS';
}
/** 410: the resourceVersion (or continue token) is too old; list again. */
export class GoneError extends KubeApiError {
  override readonly code = 'KUBE_GONE';
}
/** 422: the object failed validation. */
export class InvalidError extends KubeApiError {
  override readonly code = 'KUBE_INVALID';
}

/** No usable answer: connection failure, client-side timeout, or a response that could not be decoded. */
export class KubeTransportError extends OperatorError {
  readonly code = 'KUBE_TRANSPORT';
  readonly operation: string | undefined;
  constructor(message: string, options?: ErrorOptions & { operation?: string }) {
    super(options?.operation === undefined ? message : `${options.operation}: ${message}`, options);
    this.operation = options?.operation;
  }
}

/**
 * The error for an HTTP error response. `body` is the parsed JSON body (a Status, normally), the raw text of a
 * non-JSON body, or undefined. The subclass is chosen by status (and reason, for 409).
 */
export function kubeApiError(status: number, body: unknown, operation?: string, options?: ErrorOptions): KubeApiError {
  const init: KubeApiErrorInit = { status, ...fromBody(body), ...(operation === undefined ? {} : { operation }) };
  return construct(init, options);
}

/** The error a watch ERROR event stands for; its Status `code` is the HTTP status (500 when missing). */
export function kubeApiErrorFromStatus(status: KubeStatus, operation?: string): KubeApiError {
  return kubeApiError(typeof status.code === 'number' ? status.code : 500, status, operation);
}

function construct(init: KubeApiErrorInit, options?: ErrorOptions): KubeApiError {
  switch (init.status) {
    case 401:
      return new UnauthorizedError(init, options);
    case 403:
      return new ForbiddenError(init, options);
    case 404:
      return new NotFoundError(init, options);
    case 409:
      return init.reason === 'AlreadyExists' ? new AlreadyExistsError(init, options) : new ConflictError(init, options);
    case 410:
      return new GoneError(init, options);
    case 422:
      return new InvalidError(init, options);
    default:
      return new KubeApiError(init, options);
  }
}

function fromBody(body: unknown): Pick<KubeApiErrorInit, 'reason' | 'serverMessage' | 'retryAfterSeconds'> {
  if (typeof body === 'string') return { serverMessage: body.trim() };
  if (typeof body !== 'object' || body === null) return {};
  const status = body as KubeStatus;
  const retry = status.details?.retryAfterSeconds;
  return {
    ...(typeof status.reason === 'string' && status.reason !== '' ? { reason: status.reason } : {}),
    ...(typeof status.message === 'string' ? { serverMessage: status.message } : {}),
    ...(typeof retry === 'number' && retry > 0 ? { retryAfterSeconds: retry } : {}),
  };
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

function defaultReason(status: number): string {
  return REASONS[status] ?? 'Unknown';
}

function truncate(text: string): string {
  return text.length <= MAX_SERVER_MESSAGE ? text : `${text.slice(0, MAX_SERVER_MESSAGE)}…`;
}
