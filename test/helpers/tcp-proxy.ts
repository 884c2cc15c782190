import net from 'node:net';

/**
 * A TCP proxy the test controls, between the service and a dependency (PostgreSQL, Redis), to
 * make it hang or vanish without touching the real server:
 * - freeze(): every byte stops moving both ways, and new connections are accepted but not
 *   answered, as a frozen server (SIGSTOP, a full network buffer) looks from outside;
 * - cut(): every connection is closed and new ones are closed on arrival, as a server that went
 *   down or restarted looks;
 * - restore(): traffic flows again (frozen connections resume where they stood).
 */
export class TcpProxy {
  private mode: 'open' | 'frozen' | 'cut' = 'open';
  private readonly pairs = new Set<[net.Socket, net.Socket]>();
  private readonly waiting: net.Socket[] = [];

  private constructor(
    private readonly server: net.Server,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const server = net.createServer();
    const proxy = new TcpProxy(server, target);
    server.on('connection', (client) => proxy.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string {
    const through = new URL(url);
    through.hostname = '127.0.0.1';
    through.port = String(this.port);
    return through.toString();
  }

  get connections(): number {
    return this.pairs.size;
  }

  freeze(): void {
    this.mode = 'frozen';
    for (const [client, upstream] of this.pairs) {
      client.pause();
      upstream.pause();
    }
  }

  cut(): void {
    this.mode = 'cut';
    for (const [client, upstream] of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    for (const client of this.waiting.splice(0)) client.destroy();
  }

  restore(): void {
    this.mode = 'open';
    for (const [client, upstream] of this.pairs) {
      client.resume();
      upstream.resume();
    }
    for (const client of this.waiting.splice(0)) this.connect(client);
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    client.on('error', () => client.destroy());
    if (this.mode === 'cut') return void client.destroy();
    if (this.mode === 'frozen') return void this.waiting.push(client);
    this.connect(client);
  }

  private connect(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    this.pairs.add(pair);
    const forward = (from: net.Socket, to: net.Socket) => {
      from.on('data', (chunk) => to.write(chunk));
      from.on('end', () => to.end());
      from.on('error', () => to.destroy());
      from.on('close', () => {
        to.destroy();
        this.pairs.delete(pair);
      });
    };
    forward(client, upstream);
    forward(upstream, client);
  }
}
