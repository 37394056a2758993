// A TCP proxy in front of one server, for network-fault tests: latency, connection cuts, black holes and stalled
// connections, on both directions of every connection through it. Loopback only; node:net, no dependency.
import { connect, createServer, type Socket } from 'node:net';

/** What happens to held bytes when a black hole or a stall ends. */
export type HeldBytes =
  /** They go on in order, as TCP's retransmissions would once the path is back — even for a client that gave up
   * meanwhile: its kernel still sends what it had written, then its FIN. */
  | 'deliver'
  /** The peers gave up: the bytes are lost and the connections that held them are cut. */
  | 'drop';

/** The faults a test injects on one link. */
export interface FaultProxy {
  /** `127.0.0.1:<port>`: give it to the client in place of the server's address. */
  readonly address: string;
  /**
   * From now on every chunk, each way, waits a random time between `minMs` and `maxMs` before it goes on (order is
   * kept per direction, as on one TCP stream). `setLatency(0, 0)` ends it.
   */
  setLatency(minMs: number, maxMs: number): void;
  /** Closes every open connection at once, both ends, losing whatever was still on its way. Returns how many. */
  cutConnections(): number;
  /** From now on nothing passes, either way, on open or new connections (new ones are accepted): bytes are held. */
  startBlackHole(): void;
  /** Ends a black hole (stalled connections stay stalled). */
  endBlackHole(held: HeldBytes): void;
  /**
   * Every connection open now holds its bytes, both ways, until {@link endStalls}; new connections pass: a route or
   * a peer gone silent for the connections it carried. Returns how many.
   */
  stallOpenConnections(): number;
  endStalls(held: HeldBytes): void;
  /** Bytes clients sent that have not reached the server yet (delayed or held). */
  bytesOnTheWayIn(): number;
  /** What the proxy saw so far: connections accepted, connections the test cut, clients that closed their end. */
  counts(): { readonly connections: number; readonly cut: number; readonly clientCloses: number };
  stop(): Promise<void>;
}

/**
 * One direction of one connection: chunks wait for their time (and while `held()` says so), then go on in order. An
 * end of the sending side is passed on after the chunks before it.
 */
class Direction {
  private readonly queue: { readonly chunk: Buffer; readonly due: number }[] = [];
  private lastDue = 0;
  private timer: NodeJS.Timeout | null = null;
  private ending = false;

  private readonly to: Socket;
  private readonly latencyMs: () => number;
  private readonly held: () => boolean;

  constructor(to: Socket, latencyMs: () => number, held: () => boolean) {
    this.to = to;
    this.latencyMs = latencyMs;
    this.held = held;
  }

  get queuedBytes(): number {
    return this.queue.reduce((sum, entry) => sum + entry.chunk.length, 0);
  }

  push(chunk: Buffer): void {
    this.lastDue = Math.max(this.lastDue, Date.now() + this.latencyMs());
    this.queue.push({ chunk, due: this.lastDue });
    this.pump();
  }

  end(): void {
    this.ending = true;
    this.pump();
  }

  clear(): void {
    this.queue.length = 0;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  pump(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.held()) return;
    const now = Date.now();
    while (this.queue.length > 0 && this.queue[0]!.due <= now) {
      const { chunk } = this.queue.shift()!;
      if (!this.to.destroyed) this.to.write(chunk);
    }
    if (this.queue.length > 0) this.timer = setTimeout(() => this.pump(), this.queue[0]!.due - now);
    else if (this.ending && !this.to.destroyed) this.to.end();
  }
}

interface Connection {
  /** Set when the test cut it (its closes are then not the client's doing). */
  cut: boolean;
  stalled: boolean;
  readonly client: Socket;
  readonly upstream: Socket;
  readonly toUpstream: Direction;
  readonly toClient: Direction;
}

/** Starts a proxy to `target` (`host:port`). `random` draws the latencies (seed it to repeat a run). */
export async function startFaultProxy(target: string, random: () => number = Math.random): Promise<FaultProxy> {
  const match = /^(.+):(\d+)$/.exec(target);
  if (!match) throw new Error(`not a host:port address: '${target}'`);
  const [host, port] = [match[1]!, Number(match[2])];
  let latency = { minMs: 0, maxMs: 0 };
  let blackHole = false;
  const counts = { connections: 0, cut: 0, clientCloses: 0 };
  const latencyMs = () => (latency.maxMs === 0 ? 0 : latency.minMs + random() * (latency.maxMs - latency.minMs));
  const open = new Set<Connection>();
  const server = createServer((client) => {
    counts.connections += 1;
    const upstream = connect(port, host);
    let connection: Connection | undefined = undefined;
    const held = () => blackHole || connection?.stalled === true;
    connection = {
      cut: false,
      stalled: false,
      client,
      upstream,
      toUpstream: new Direction(upstream, latencyMs, held),
      toClient: new Direction(client, latencyMs, held),
    };
    const { toUpstream, toClient } = connection;
    open.add(connection);
    client.on('data', (chunk: Buffer) => toUpstream.push(chunk));
    upstream.on('data', (chunk: Buffer) => toClient.push(chunk));
    // A side that ends or closes (or is torn down) still has what it wrote delivered, then its end.
    client.on('end', () => toUpstream.end());
    upstream.on('end', () => toClient.end());
    client.on('close', () => {
      if (connection?.cut === false) counts.clientCloses += 1;
      toUpstream.end();
    });
    upstream.on('close', () => toClient.end());
    for (const socket of [client, upstream]) {
      socket.on('error', () => undefined);
      socket.on('close', () => {
        if (client.destroyed && upstream.destroyed && connection !== undefined) open.delete(connection);
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the proxy has no address');
  const cut = (connections: readonly Connection[]): number => {
    for (const connection of connections) {
      connection.cut = true;
      connection.toUpstream.clear();
      connection.toClient.clear();
      connection.client.destroy();
      connection.upstream.destroy();
      open.delete(connection);
    }
    counts.cut += connections.length;
    return connections.length;
  };
  const resume = (connections: readonly Connection[], held: HeldBytes) => {
    if (held === 'drop') {
      cut(connections);
      return;
    }
    for (const connection of connections) {
      connection.toUpstream.pump();
      connection.toClient.pump();
    }
  };
  return {
    address: `127.0.0.1:${address.port}`,
    setLatency: (minMs, maxMs) => {
      latency = { minMs, maxMs };
    },
    cutConnections: () => cut([...open]),
    startBlackHole: () => {
      blackHole = true;
    },
    endBlackHole: (held) => {
      blackHole = false;
      resume(
        [...open].filter((c) => !c.stalled),
        held,
      );
    },
    stallOpenConnections: () => {
      for (const connection of open) connection.stalled = true;
      return open.size;
    },
    endStalls: (held) => {
      const stalled = [...open].filter((c) => c.stalled);
      for (const connection of stalled) connection.stalled = false;
      resume(stalled, held);
    },
    bytesOnTheWayIn: () => [...open].reduce((sum, c) => sum + c.toUpstream.queuedBytes, 0),
    counts: () => ({ ...counts }),
    stop: async () => {
      blackHole = false;
      cut([...open]);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
