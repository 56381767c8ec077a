import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server (PostgreSQL for the cluster tests): `cut(ms)` makes the server unreachable through it
 * for a while, as a network partition or a database failover would: every open connection is dropped and new ones are
 * refused until the time is up.
 */
export interface TcpProxy {
  port: number;
  cut(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(server));
    });
  const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
  let server = await listen(0);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    async cut(ms) {
      const closing = close(server);
      for (const socket of sockets) socket.destroy();
      await closing;
      await new Promise((resolve) => setTimeout(resolve, ms));
      server = await listen(port);
    },
    async close() {
      const closing = close(server);
      for (const socket of sockets) socket.destroy();
      await closing;
    },
  };
}
