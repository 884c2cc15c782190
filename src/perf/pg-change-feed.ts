import pg from 'pg';
import type { CacheTopic, ChangeFeed } from './exact-cache.js';

/** The channel the triggers of migration 0008 notify, with "<schema> <topic>" as the payload. */
export const CACHE_CHANNEL = 'tagsvc_cache';
const RECONNECT_MS = 1000;

/**
 * PostgreSQL's change feed for the exact caches (exact-cache.ts). Triggers on the tables behind
 * the cached rows notify CACHE_CHANNEL in the transaction that changes them; one connection of
 * this process listens, and each notification moves its topic's generation on.
 *
 * A notification arrives on its own time, so a request could come in after another process's
 * commit but before that commit's notification. A fence closes the gap: settled() waits for a
 * round trip on the listening connection that started after it was called. The committing
 * backend signals the listening backends before its client learns of the commit, and a
 * listening backend sends the notifications it was signalled ahead of the answer to its next
 * query (PostgreSQL delivers pending notifications before ReadyForQuery). So the fence comes
 * back after the notification of every commit acknowledged before settled() was called.
 * Callers that arrive while a fence is out share the next one: a round trip per batch of
 * requests, on a connection that does nothing else, instead of a lookup per request.
 *
 * Until the connection listens, and whenever it is lost, nothing may be cached: settled() says
 * undefined. It connects on first use and again a second after a loss; every generation then
 * moves on, so whatever was cached before the gap is dropped.
 */
export class PgChangeFeed implements ChangeFeed {
  /** Connected and listening. */
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  /** The schema whose tables this process uses: notifications of other schemas are not ours. */
  private schema: string | undefined;
  private readonly generations: Record<CacheTopic, number> = { keys: 0, tags: 0 };
  private fenceOut: Promise<boolean> | undefined;
  private fenceNext: Promise<boolean> | undefined;
  private fencedThisTask = false;

  /** `answerWithinMs()`: how long a fence may wait for its answer before the connection counts as lost (0: no limit). */
  constructor(
    private readonly config: pg.ClientConfig,
    private readonly answerWithinMs: () => number,
  ) {}

  async settled(topic: CacheTopic): Promise<number | undefined> {
    if (!this.client) {
      void this.connect();
      return undefined;
    }
    if (this.fencedThisTask) return this.current(topic);
    return (await this.fence()) ? this.current(topic) : undefined;
  }

  current(topic: CacheTopic): number | undefined {
    return this.client ? this.generations[topic] : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** True once a round trip that started after this call came back on the listening connection. */
  private fence(): Promise<boolean> {
    if (!this.fenceOut) return (this.fenceOut = this.roundTrip());
    // The fence out may have started before this caller arrived: it waits for the next one.
    this.fenceNext ??= this.fenceOut.then(() => {
      this.fenceNext = undefined;
      return (this.fenceOut = this.roundTrip());
    });
    return this.fenceNext;
  }

  private roundTrip(): Promise<boolean> {
    const client = this.client;
    if (!client) return Promise.resolve(false);
    // An empty query: the cheapest round trip there is, with nothing to parse, plan or send back.
    const answered = client.query('').then(
      () => {
        // A connection lost meanwhile vouches for nothing: its notifications may be missing.
        if (this.client !== client) return false;
        this.markFencedThisTask();
        return true;
      },
      () => false,
    );
    const trip = this.withinLimit(client, answered);
    void trip.then(() => {
      if (this.fenceOut === trip) this.fenceOut = undefined;
    });
    return trip;
  }

  /**
   * A server that does not answer (frozen, or cut off) must not hold every request waiting for
   * a fence: past the limit the connection counts as lost, and requests go to the database
   * uncached (which answers them, or fails them within its own bound).
   */
  private withinLimit(client: pg.Client, answered: Promise<boolean>): Promise<boolean> {
    const limitMs = this.answerWithinMs();
    if (limitMs === 0) return answered;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => {
        this.lost(client);
        void client.end().catch(() => undefined);
        resolve(false);
      }, limitMs);
    });
    return Promise.race([answered, late]).finally(() => clearTimeout(timer));
  }

  /**
   * A fence's answer arrives in a task of its own (the listening connection's I/O), and what
   * runs in that task is the work of the requests that waited for it, each of which arrived
   * before the fence started. So their later lookups within the task (a tag after the API key)
   * need no fence of their own. process.nextTick ends that once the promise jobs queued in the
   * task have run.
   */
  private markFencedThisTask(): void {
    if (this.fencedThisTask) return;
    this.fencedThisTask = true;
    process.nextTick(() => {
      this.fencedThisTask = false;
    });
  }

  private connect(): Promise<void> {
    if (this.closed || this.retry) return Promise.resolve();
    this.connecting ??= this.listen().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client(this.config);
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => this.notified(message.payload));
    try {
      await client.connect();
      // The listening connection has the pool's search_path, so this is the schema the triggers name.
      const { rows } = await client.query<{ schema: string }>('SELECT current_schema() AS schema');
      this.schema = rows[0]?.schema;
      await client.query(`LISTEN ${CACHE_CHANNEL}`);
    } catch {
      await client.end().catch(() => undefined);
      this.reconnectLater();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.moveAllGenerations();
    this.client = client;
  }

  private notified(payload: string | undefined): void {
    const [schema, topic] = (payload ?? '').split(' ');
    if (schema === this.schema && (topic === 'keys' || topic === 'tags')) this.generations[topic] += 1;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.moveAllGenerations();
    this.reconnectLater();
  }

  private reconnectLater(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect();
    }, RECONNECT_MS);
    this.retry.unref();
  }

  private moveAllGenerations(): void {
    this.generations.keys += 1;
    this.generations.tags += 1;
  }
}
