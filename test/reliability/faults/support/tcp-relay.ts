import { connect, createServer, type Socket } from 'node:net';

/** A TCP relay in front of a server, that can silently drop everything clients send from some moment on. */
export interface TcpRelay {
  readonly address: string;
  /**
   * From now on, bytes from the current clients never reach the server (a one-way partition): a worker behind
   * the relay still runs its activities, but the server never learns that they completed.
   */
  dropClientTraffic(): void;
  stop(): Promise<void>;
}

export async function startTcpRelay(target: string): Promise<TcpRelay> {
  const [host, portText] = splitAddress(target);
  const sockets = new Set<Socket>();
  let dropping = false;
  const server = createServer((client) => {
    const upstream = connect(Number(portText), host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if (!dropping) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the relay has no address');
  return {
    address: `127.0.0.1:${address.port}`,
    dropClientTraffic: () => {
      dropping = true;
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function splitAddress(address: string): [string, string] {
  const match = /^(.+):(\d+)$/.exec(address);
  if (!match) throw new Error(`not a host:port address: '${address}'`);
  return [match[1]!, match[2]!];
}
