import { describe, expect, it } from 'vitest';
import { ConflictError, GoneError, KubeTransportError, NotFoundError } from './errors.js';
import type { HttpRequest, HttpResponse, Send } from './http.js';
import { RestClient } from './rest.js';
import type { ApiResource, WatchEvent } from './types.js';

const configMaps: ApiResource = { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const signal = new AbortController().signal;

function response(status: number, chunks: Array<string | Error>): HttpResponse {
  const encoded = chunks.map((c) => (typeof c === 'string' ? new TextEncoder().encode(c) : c));
  const body: AsyncIterable<Uint8Array> = {
    async *[Symbol.asyncIterator]() {
      for (const c of encoded) {
        if (c instanceof Error) throw c;
        yield c;
      }
    },
  };
  return {
    status,
    body,
    text: async () => {
      let text = '';
      for await (const c of body) text += new TextDecoder().decode(c);
      return text;
    },
    discard: () => {},
  };
}

/** A Send that records requests and answers from a list of responses (or errors), in order. */
function fakeSend(...answers: Array<HttpResponse | Error>): { send: Send; requests: HttpRequest[] } {
  const requests: HttpRequest[] = [];
  const send: Send = async (req) => {
    requests.push(req);
    const next = answers.shift();
    if (next === undefined) throw new Error('no scripted response');
    if (next instanceof Error) throw next;
    return next;
  };
  return { send, requests };
}

const client = (send: Send) => new RestClient({ send, userAgent: 'test-agent' });

describe('RestClient', () => {
  it('gives up on a server that does not answer within the request timeout, with a transport error', async () => {
    const hanging: Send = (req) =>
      new Promise((_resolve, reject) => req.signal.addEventListener('abort', () => reject(req.signal.reason)));
    const slow = new RestClient({ send: hanging, userAgent: 'test-agent', requestTimeoutMs: 20 });
    const err = await slow.get(configMaps, 'ns', 'a', { signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeTransportError);
    expect((err as Error).message).toContain('no complete response within 20 ms');
  });

  it('sends JSON with the user agent and returns the parsed object', async () => {
    const { send, requests } = fakeSend(
      response(200, ['{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"x-unknown":1}']),
    );
    const obj = await client(send).get(configMaps, 'ns', 'a', { signal });
    expect(obj['x-unknown']).toBe(1);
    expect(requests[0]).toMatchObject({ method: 'GET', path: '/api/v1/namespaces/ns/configmaps/a' });
    expect(requests[0]?.headers).toMatchObject({ 'User-Agent': 'test-agent', Accept: 'application/json' });
  });

  it('fills in apiVersion and kind of list items and returns the continue token', async () => {
    const { send, requests } = fakeSend(
      response(200, ['{"metadata":{"resourceVersion":"9","continue":"abc"},"items":[{"metadata":{"name":"a"}}]}']),
    );
    const list = await client(send).list(configMaps, { signal, namespace: 'ns', limit: 1, labelSelector: 'app=x' });
    expect(list).toEqual({
      items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }],
      resourceVersion: '9',
      continue: 'abc',
    });
    expect(requests[0]?.path).toBe('/api/v1/namespaces/ns/configmaps?labelSelector=app%3Dx&limit=1');
  });

  it('maps an error status to its KubeApiError subclass without quoting the request body', async () => {
    const { send } = fakeSend(
      response(409, ['{"kind":"Status","code":409,"reason":"Conflict","message":"the object has been modified"}']),
    );
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'ns' },
      data: { password: 's3cret' },
    };
    const err = await client(send)
      .update(configMaps, obj, { signal })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(String((err as Error).message)).not.toContain('s3cret');
    expect((err as Error).message).toBe(
      'PUT /api/v1/namespaces/ns/configmaps/a: 409 Conflict: the object has been modified',
    );
  });

  it('sends patches with their content type, field manager and force flag', async () => {
    const { send, requests } = fakeSend(response(200, ['{}']));
    await client(send).patch(configMaps, 'ns', 'a', { data: { k: 'v' } }, 'apply', {
      signal,
      fieldManager: 'op',
      force: true,
    });
    expect(requests[0]).toMatchObject({
      method: 'PATCH',
      path: '/api/v1/namespaces/ns/configmaps/a?fieldManager=op&force=true',
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      body: '{"data":{"k":"v"}}',
    });
  });

  it('sends dryRun=All for a dry-run apply, and no dryRun otherwise', async () => {
    const { send, requests } = fakeSend(response(200, ['{}']), response(200, ['{}']));
    const options = { signal, fieldManager: 'op', force: true };
    await client(send).patch(configMaps, 'ns', 'a', {}, 'apply', { ...options, dryRun: true });
    await client(send).patch(configMaps, 'ns', 'a', {}, 'apply', { ...options, dryRun: false });
    expect(requests.map((r) => r.path)).toEqual([
      '/api/v1/namespaces/ns/configmaps/a?fieldManager=op&dryRun=All&force=true',
      '/api/v1/namespaces/ns/configmaps/a?fieldManager=op&force=true',
    ]);
  });

  it('wraps connection failures in a KubeTransportError that keeps the cause', async () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const err = await client(fakeSend(cause).send)
      .serverVersion({ signal })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeTransportError);
    expect((err as Error).cause).toBe(cause);
  });

  it('rejects with the abort reason when the caller aborts', async () => {
    const ac = new AbortController();
    ac.abort(new Error('shutting down'));
    await expect(
      client(fakeSend(response(200, ['{}'])).send).get(configMaps, 'ns', 'a', { signal: ac.signal }),
    ).rejects.toThrow('shutting down');
  });

  describe('watch', () => {
    const opts = { namespace: 'ns', resourceVersion: '5', timeoutSeconds: 300, allowWatchBookmarks: true };

    it('parses events split across chunks, delivers ERROR events, and resolves when the stream ends', async () => {
      const { send, requests } = fakeSend(
        response(200, [
          '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"BOOK',
          'MARK","object":{"metadata":{"resourceVersion":"7"}}}\n',
          '{"type":"ERROR","object":{"kind":"Status","code":410}}',
        ]),
      );
      const events: WatchEvent[] = [];
      await client(send).watch(configMaps, opts, (e) => events.push(e), signal);
      expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK', 'ERROR']);
      expect(requests[0]?.path).toBe(
        '/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=5&timeoutSeconds=300&allowWatchBookmarks=true',
      );
    });

    it('rejects with GoneError when the watch request itself is answered with 410', async () => {
      const { send } = fakeSend(response(410, ['{"kind":"Status","code":410,"reason":"Expired"}']));
      await expect(client(send).watch(configMaps, opts, () => {}, signal)).rejects.toBeInstanceOf(GoneError);
    });

    it('rejects with a KubeTransportError for a broken stream or a line that is not an event', async () => {
      const broken = fakeSend(response(200, ['{"type":"ADDED","object":{"metadata":{}}}\n', new Error('ECONNRESET')]));
      await expect(client(broken.send).watch(configMaps, opts, () => {}, signal)).rejects.toBeInstanceOf(
        KubeTransportError,
      );
      const garbage = fakeSend(response(200, ['not json\n']));
      await expect(client(garbage.send).watch(configMaps, opts, () => {}, signal)).rejects.toBeInstanceOf(
        KubeTransportError,
      );
    });

    it('passes an error thrown by the callback through unchanged', async () => {
      const { send } = fakeSend(response(200, ['{"type":"ADDED","object":{"metadata":{}}}\n']));
      const mine = new Error('callback failed');
      await expect(
        client(send).watch(
          configMaps,
          opts,
          () => {
            throw mine;
          },
          signal,
        ),
      ).rejects.toBe(mine);
    });
  });

  describe('discover', () => {
    const coreV1 = (kinds: string) =>
      response(200, [
        JSON.stringify({
          resources: [
            ...kinds.split(',').map((k) => ({ name: `${k.toLowerCase()}s`, kind: k, namespaced: k !== 'Namespace' })),
            { name: 'configmaps/status', kind: 'ConfigMap', namespaced: true },
          ],
        }),
      ]);

    it('maps a kind to its plural and scope, caching the group/version', async () => {
      const { send, requests } = fakeSend(coreV1('ConfigMap,Namespace'));
      const c = client(send);
      const gvk = { group: '', version: 'v1', kind: 'Namespace' };
      expect(await c.discover(gvk, { signal })).toEqual({ ...gvk, plural: 'namespaces', namespaced: false });
      expect(await c.discover({ ...gvk, kind: 'ConfigMap' }, { signal })).toMatchObject({
        plural: 'configmaps',
        namespaced: true,
      });
      expect(requests.map((r) => r.path)).toEqual(['/api/v1']);
    });

    it('looks again once when a kind is missing from the cache, then reports NotFound', async () => {
      const { send, requests } = fakeSend(coreV1('ConfigMap'), coreV1('ConfigMap,Widget'), coreV1('ConfigMap,Widget'));
      const c = client(send);
      await c.discover({ group: '', version: 'v1', kind: 'ConfigMap' }, { signal });
      expect(await c.discover({ group: '', version: 'v1', kind: 'Widget' }, { signal })).toMatchObject({
        plural: 'widgets',
      });
      await expect(c.discover({ group: '', version: 'v1', kind: 'Gadget' }, { signal })).rejects.toBeInstanceOf(
        NotFoundError,
      );
      expect(requests).toHaveLength(3);
    });
  });
});
