import { Buffer } from 'node:buffer';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeHelmPayload, releaseJson, releaseSecret } from '../../test/fakes/helm-secret.js';
import { ReleaseDecodeError } from './errors.js';
import { decodeHelmPayload, decodeReleaseSecretData, RELEASE_STATUSES, releaseFromSecret } from './release.js';

const SECRET_VALUE = 's3cr3t';
/** Invalid JSON whose V8 parser message quotes the text around the error, secret included. */
const QUOTING_JSON = `{"config":{"password":["${SECRET_VALUE}",x]}}`;
const SECRET_NAME = 'sh.helm.release.v1.example.v1';

/** A release Secret whose Helm payload (before the API's base64) is `payload`. */
function secretWithPayload(payload: string) {
  const good = releaseSecret(releaseJson());
  return { ...good, data: { release: Buffer.from(payload, 'latin1').toString('base64') } };
}

const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');

function causeChain(err: unknown): string {
  const messages: string[] = [];
  for (let e: unknown = err; e instanceof Error; e = e.cause) messages.push(e.message);
  return messages.join(' <- ');
}

describe('releaseFromSecret', () => {
  it('decodes a gzip-compressed release Secret into the fields we read', () => {
    const json = releaseJson({
      name: 'web',
      namespace: 'apps',
      version: 3,
      status: 'deployed',
      description: 'Upgrade complete',
      config: { replicaCount: 2, image: { tag: '1.27' } },
      manifest: '---\n# Source: nginx/templates/svc.yaml\nkind: Service\n',
    });

    expect(releaseFromSecret(releaseSecret(json))).toEqual({
      name: 'web',
      namespace: 'apps',
      version: 3,
      info: {
        status: 'deployed',
        description: 'Upgrade complete',
        notes: 'nginx is installed',
        firstDeployed: '2025-01-02T03:04:05.123456789Z',
        lastDeployed: '2025-01-02T03:04:05.123456789Z',
      },
      chart: { name: 'nginx', version: '0.1.0', appVersion: '1.27.0' },
      config: { replicaCount: 2, image: { tag: '1.27' } },
      manifest: '---\n# Source: nginx/templates/svc.yaml\nkind: Service\n',
    });
  });

  it('decodes a legacy release stored as plain (uncompressed) JSON', () => {
    const json = releaseJson({ version: 7, config: { a: 1 } });
    const release = releaseFromSecret(releaseSecret(json, { gzip: false }));
    expect(release.version).toBe(7);
    expect(release.config).toEqual({ a: 1 });
  });

  it.each(RELEASE_STATUSES)('accepts the %s status', (status) => {
    expect(releaseFromSecret(releaseSecret(releaseJson({ status }))).info.status).toBe(status);
  });

  it('defaults what Helm omits when empty: config, manifest, namespace, appVersion, notes', () => {
    const { config: _config, manifest: _manifest, namespace: _namespace, ...json } = releaseJson({ appVersion: null });
    const info = { status: 'failed', first_deployed: '', last_deployed: '' };
    const release = decodeHelmPayload(encodeHelmPayload({ ...json, info, config: null }));
    expect(release).toMatchObject({ namespace: '', config: {}, manifest: '', info: { status: 'failed' } });
    expect(release.chart).toEqual({ name: 'nginx', version: '0.1.0' });
    expect(Object.keys(release.info)).toEqual(['status']);
  });

  it.each([
    ['a Secret of another type', { type: 'Opaque' }, /type is not helm\.sh\/release\.v1/],
    ['a Secret without data.release', { data: {} }, /no data\.release/],
  ])('rejects %s', (_, patch, message) => {
    const secret = { ...releaseSecret(releaseJson()), ...patch };
    expect(() => releaseFromSecret(secret)).toThrow(message);
  });

  it.each([
    ['name', { name: 'other' }],
    ['version', { version: '2' }],
  ])('rejects a Secret whose %s label disagrees with its payload', (label, labels) => {
    const good = releaseSecret(releaseJson());
    const secret = { ...good, metadata: { ...good.metadata, labels: { ...good.metadata.labels, ...labels } } };
    expect(() => releaseFromSecret(secret)).toThrow(`label "${label}" disagrees`);
  });

  it('lists the events of its hooks once each, and none for a release without hooks', () => {
    const hook = (events: string[]) => ({ name: 'h', kind: 'Job', path: 'demo/templates/h.yaml', events });
    const hooked = { ...releaseJson(), hooks: [hook(['pre-delete', 'post-install']), hook(['pre-delete'])] };
    expect(releaseFromSecret(releaseSecret(hooked)).hookEvents).toEqual(['pre-delete', 'post-install']);
    expect(releaseFromSecret(releaseSecret(releaseJson())).hookEvents).toBeUndefined();
  });

  it('names the Secret as namespace/name in errors', () => {
    const secret = { ...releaseSecret(releaseJson({ namespace: 'apps' })), data: { release: '!!!' } };
    expect(() => releaseFromSecret(secret)).toThrow(`Helm release secret apps/${SECRET_NAME}:`);
  });
});

describe('decoding corrupt release data', () => {
  const gz = gzipSync(Buffer.from(JSON.stringify(releaseJson({ config: { password: SECRET_VALUE } }))));
  const flipped = Buffer.from(gz);
  flipped.fill(0xff, 20, 40);

  it.each([
    ['Secret data that is not base64', { release: `${b64(gz)}$%` }, /Secret data is not valid base64/],
    ['Secret data with a bad length', { release: 'abc' }, /Secret data is not valid base64/],
    ['a Helm payload that is not base64', secretWithPayload('not base64 at all!').data, /payload is not valid base64/],
    ['truncated gzip', secretWithPayload(b64(gz.subarray(0, gz.length - 30))).data, /not valid gzip/],
    ['corrupted gzip', secretWithPayload(b64(flipped)).data, /not valid gzip/],
    ['JSON whose parser message would quote it', secretWithPayload(b64(QUOTING_JSON)).data, /not valid JSON/],
    ['truncated JSON', secretWithPayload(b64(`{"config":{"password":"${SECRET_VALUE}"`)).data, /not valid JSON/],
    ['an empty payload', secretWithPayload('').data, /not valid JSON/],
    ['a JSON array', secretWithPayload(b64('[]')).data, /is not an object/],
    [
      'an unknown status',
      secretWithPayload(encodeHelmPayload({ ...releaseJson(), info: { status: SECRET_VALUE } })).data,
      /no known "info\.status"/,
    ],
    [
      'a revision of 0',
      secretWithPayload(encodeHelmPayload({ ...releaseJson({ config: { password: SECRET_VALUE } }), version: 0 })).data,
      /positive integer "version"/,
    ],
    [
      'a chart without metadata',
      secretWithPayload(encodeHelmPayload({ ...releaseJson({ config: { password: SECRET_VALUE } }), chart: {} })).data,
      /"chart\.metadata"/,
    ],
    [
      'config that is not an object',
      secretWithPayload(encodeHelmPayload({ ...releaseJson(), config: [SECRET_VALUE] })).data,
      /non-object "config"/,
    ],
  ])('reports %s as a ReleaseDecodeError naming the Secret and no values', (_, data, reason) => {
    const secret = { ...releaseSecret(releaseJson()), data };
    let caught: unknown;
    try {
      releaseFromSecret(secret);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ReleaseDecodeError);
    const err = caught as ReleaseDecodeError;
    expect(err.code).toBe('HELM_RELEASE_DECODE');
    expect(err.secret).toBe(`default/${SECRET_NAME}`);
    expect(err.message).toContain(`default/${SECRET_NAME}`);
    expect(err.message).toMatch(reason);
    expect(causeChain(err)).not.toContain(SECRET_VALUE);
  });

  it('relies on a parser message that really would leak the secret', () => {
    expect(() => JSON.parse(QUOTING_JSON)).toThrow(SECRET_VALUE);
  });

  it('keeps a content-free cause for gzip and JSON failures', () => {
    expect(() => decodeHelmPayload(b64(flipped))).toThrow(
      expect.objectContaining({ cause: expect.any(Error), message: expect.stringMatching(/payload: .*gzip/) }),
    );
    let caught: unknown;
    try {
      decodeHelmPayload(b64(QUOTING_JSON));
    } catch (err) {
      caught = err;
    }
    expect((caught as Error).cause).toBeInstanceOf(SyntaxError);
  });
});

describe('decodeReleaseSecretData and decodeHelmPayload', () => {
  it('take the two layers of base64 respectively', () => {
    const json = releaseJson({ name: 'layers', version: 2 });
    const payload = encodeHelmPayload(json);
    const apiValue = Buffer.from(payload).toString('base64');
    expect(decodeHelmPayload(payload)).toEqual(decodeReleaseSecretData(apiValue));
    expect(decodeHelmPayload(payload).name).toBe('layers');
    expect(() => decodeHelmPayload(apiValue)).toThrow(ReleaseDecodeError);
  });

  it('accepts line breaks inside base64, as Go does', () => {
    const payload = encodeHelmPayload(releaseJson());
    const wrapped = payload.replace(/(.{76})/g, '$1\r\n');
    expect(decodeHelmPayload(wrapped).name).toBe('example');
  });

  it('says "payload" instead of a Secret name when given none', () => {
    expect(() => decodeHelmPayload('@@@@')).toThrow('cannot decode Helm release payload: release payload is not');
  });

  it('names the Secret when given one', () => {
    expect(() => decodeReleaseSecretData('@@@@', { secret: 'ns/s' })).toThrow('Helm release secret ns/s:');
  });
});
