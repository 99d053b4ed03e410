// A fault-injecting TCP proxy for the network chaos scenario: listens on 127.0.0.1:0 and forwards bytes to a target,
// with faults switched at run time (drop, latency, black hole, refuse). Used by index.ts and
// leader.ts; it never looks inside the bytes (TLS goes end to end) and never outlives close().
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface ProxyStats {
  readonly accepted: number;
  readonly dropped: number;
  /** Connections the black hole took: silent for good. */
  readonly dead: number;
}

export interface FaultProxy {
  readonly port: number;
  /** Destroys every open connection at once (mid-watch, mid-request); keeps accepting. Returns how many. */
  drop(): number;
  /** Delays each chunk by `ms` in both directions, in order (0: none). */
  latency(ms: number): void;
  /**
   * Every connection open now or accepted until pass() is read and never answered, and stays so for good (a
   * middlebox that lost its state drops their packets silently): only connections made after pass() work.
   */
  blackhole(): void;
  /** Destroys every open connection and stops listening: connects are refused until pass(). */
  refuse(): void;
  /** Lifts the black hole, the refusal and the latency. */
  pass(): Promise<void>;
  stats(): ProxyStats;
  close(): Promise<void>;
}

interface Pair {
  readonly client: Socket;
  upstream: Socket | undefined;
  dead: boolean;
  /** Chunks waiting for their latency, per direction; their order is kept. */
  readonly tail: { up: Promise<void>; down: Promise<void> };
  readonly pending: { up: number; down: number };
}

const listen = (server: Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const a = server.address();
      resolve(typeof a === 'object' && a !== null ? a.port : 0);
    });
  });

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Starts a proxy to `target` (host and port of the real server). */
export async function startFaultProxy(target: { readonly host: string; readonly port: number }): Promise<FaultProxy> {
  const pairs = new Set<Pair>();
  let delayMs = 0;
  let holing = false;
  let refusing = false;
  let accepted = 0;
  let dropped = 0;
  let dead = 0;

  const forward = (p: Pair, dir: 'up' | 'down', chunk: Buffer) => {
    if (p.dead) return; // read and discarded
    const write = () => {
      const to = dir === 'up' ? p.upstream : p.client;
      if (!p.dead && to && !to.destroyed) to.write(chunk);
    };
    if (delayMs === 0 && p.pending[dir] === 0) return write();
    const due = performance.now() + delayMs;
    p.pending[dir]++;
    p.tail[dir] = p.tail[dir].then(async () => {
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      p.pending[dir]--;
      write();
    });
  };

  const kill = (p: Pair) => {
    p.client.destroy();
    p.upstream?.destroy();
    pairs.delete(p);
  };

  const bury = (p: Pair) => {
    if (p.dead) return;
    p.dead = true;
    dead++;
  };

  const onConnection = (client: Socket) => {
    accepted++;
    const p: Pair = {
      client,
      upstream: undefined,
      dead: false,
      tail: { up: Promise.resolve(), down: Promise.resolve() },
      pending: { up: 0, down: 0 },
    };
    pairs.add(p);
    client.on('error', () => undefined);
    client.on('data', (c: Buffer) => forward(p, 'up', c));
    // A dead pair keeps the client's side open and silent; only the client closing ends it.
    client.on('close', () => kill(p));
    if (holing || refusing) {
      if (refusing) kill(p);
      else bury(p);
      return;
    }
    const up = connect(target.port, target.host);
    p.upstream = up;
    up.on('error', () => undefined);
    up.on('data', (c: Buffer) => forward(p, 'down', c));
    up.on('close', () => {
      if (!p.dead) kill(p);
    });
  };

  let server = createServer({ noDelay: true }, onConnection);
  const port = await listen(server, 0);

  const destroyAll = () => {
    const n = pairs.size;
    for (const p of [...pairs]) kill(p);
    return n;
  };

  return {
    port,
    drop() {
      const n = destroyAll();
      dropped += n;
      return n;
    },
    latency(ms) {
      delayMs = ms;
    },
    blackhole() {
      holing = true;
      for (const p of pairs) bury(p);
    },
    refuse() {
      refusing = true;
      dropped += destroyAll();
      server.close();
    },
    async pass() {
      holing = false;
      delayMs = 0;
      if (refusing) {
        refusing = false;
        server = createServer({ noDelay: true }, onConnection);
        await listen(server, port);
      }
    },
    stats: () => ({ accepted, dropped, dead }),
    async close() {
      destroyAll();
      await new Promise<void>((r) => (server.listening ? server.close(() => r()) : r()));
    },
  };
}
