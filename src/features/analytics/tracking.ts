import { hash, timingSafeEqual } from 'node:crypto';
import type { ServiceContext } from '../../context.js';
import type { ViewSource } from '../../db/schema.js';
import { transaction } from '../../db/transaction.js';
import { failureReason } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import * as repo from './tracking.repository.js';
import { Places } from './geo.js';
import { hourOf } from './period.js';
import type { ClickRecorder, RecordedClick } from './click-recorder.js';
import type { RecordedView } from './view-record.js';
import type { ViewRecorder } from './view-recorder.js';
import { rollUpViews } from './view-rollup.js';
import { AnonymousVisitors, describeClient, isBot, VISITOR_COOKIE, visitorFromCookie } from './visitor.js';

/** The tag a public page shows, as far as counting its views is concerned. */
export interface TrackedTag {
  id: string;
  access_logging: number;
}

/** A counted visit to a page, as the request tells it. */
export interface Visit {
  /** The client's address, proxy headers resolved. */
  ip: string;
  userAgent: string;
  /** The Cookie header, which may name a returning visitor. */
  cookie: string | undefined;
  /** The Referer header. */
  referrer: string | string[] | undefined;
  /** The host the page was asked for: a referrer from it is a direct visit. */
  host: string;
  /** The page address's query parameters, which may carry utm_source, utm_medium and utm_campaign. */
  query: unknown;
}

/**
 * A visit being recorded: the Set-Cookie the answer carries (the visitor's, set whether or not
 * the view is stored), and the beacon token of the view once it is stored.
 */
export interface CountedVisit {
  setCookie: string;
  token: Promise<string>;
}

/** A click being recorded: the visitor's Set-Cookie, as for a view, and the click's commit. */
export interface CountedClick {
  setCookie: string;
  stored: Promise<void>;
}

const MAX_DURATION_SECONDS = 24 * 3600;
const YEAR_SECONDS = 365 * 24 * 3600;

/**
 * Counts public page views and link clicks, and takes the page's beacons (time on page,
 * heartbeats). Views are committed before the page is answered, through the group-committing
 * ViewRecorder; clicks before their redirect, through the ClickRecorder.
 */
export class Tracker {
  private readonly anonymousVisitors: AnonymousVisitors;
  private readonly places = new Places();
  private readonly beaconKey: string;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly recorder: ViewRecorder,
    private readonly clicks: ClickRecorder,
  ) {
    this.anonymousVisitors = new AnonymousVisitors(ctx.config.secretKey);
    // A key of its own, derived from the secret, so no other use of the secret shares its hashes.
    this.beaconKey = hash('sha256', `tagsvc beacon key\n${ctx.config.secretKey}`, 'base64url');
  }

  /** Presence is best effort: a Redis hiccup must not fail a page whose view is already stored. */
  private present(sighting: Promise<void>): Promise<void> {
    return sighting.catch((error: unknown) => this.ctx.log.warn({ reason: failureReason(error) }, 'presence not updated'));
  }

  /** Whether a request is a visit to count: a GET (HEAD is not a visit) from a browser, not a bot. */
  counts(method: string, userAgent: string | undefined): boolean {
    return method === 'GET' && !isBot(userAgent);
  }

  /**
   * A request for a tag's page that counts() refused: a GET then is a bot's (or has no user
   * agent), counted apart from the views, in memory (bot-views.ts).
   */
  countBotRequest(method: string, tagId: string): void {
    if (method === 'GET') this.ctx.botViews.count(tagId);
  }

  /** The visitor of a visit: its cookie's, else a keyed hash of its address and agent. */
  private visitorOf(visit: Visit): string {
    return visitorFromCookie(visit.cookie) ?? this.anonymousVisitors.of(visit.ip, visit.userAgent);
  }

  /** The cookie that keeps the visitor's id, so a browser keeps one id for its views and clicks. */
  private visitorCookie(visitor: string): string {
    const secure = this.ctx.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
    return `${VISITOR_COOKIE}=${visitor}; Path=/; Max-Age=${YEAR_SECONDS}; SameSite=Lax; HttpOnly${secure}`;
  }

  /** Records the view of a visit that counts (counts() said so). */
  recordView(visit: Visit, tag: TrackedTag, scan: boolean): CountedVisit {
    const visitor = this.visitorOf(visit);
    return { setCookie: this.visitorCookie(visitor), token: this.store(visit, visitor, tag, scan) };
  }

  /**
   * Records a click, by a visit that counts (counts() said so), of one of the tag's web link
   * blocks. Only what the report and the event need is kept: the block, the instant and the
   * visitor; not the address, the agent or the referrer.
   */
  recordClick(visit: Visit, tag: RecordedClick['tag'], block: RecordedClick['block']): CountedClick {
    const visitor = this.visitorOf(visit);
    const click = { tag, block, occurred_at: this.ctx.clock.now().toISOString(), visitor };
    return { setCookie: this.visitorCookie(visitor), stored: this.clicks.record(click) };
  }

  /** Stores the view; returns the token the page's beacon uses. */
  private async store(visit: Visit, visitor: string, tag: TrackedTag, scan: boolean): Promise<string> {
    const { ip: address, userAgent } = visit;
    const client = describeClient(userAgent);
    const place = this.places.of(address) ?? (await this.places.locate(address));
    const referrer = referrerToKeep(visit.referrer);
    const now = this.ctx.clock.now().toISOString();
    const view: RecordedView = {
      id: newId('view'),
      tag_id: tag.id,
      occurred_at: now,
      source: this.sourceOf(scan, referrer, visit.host),
      visitor,
      ...client,
      country: place.country,
      region: place.region,
      city: place.city,
      ip_masked: place.ip_masked,
      user_agent: tag.access_logging === 1 ? userAgent.slice(0, 1024) : null,
      referrer,
      logged: tag.access_logging,
      duration_seconds: null,
      ...campaignOf(visit.query),
    };
    await this.recorder.record(view);
    // Not waited for: the view is stored, and presence is best effort (its failures are logged).
    const session = { id: view.id, started_at: now, device: view.device, country: view.country, visitor };
    void this.present(this.ctx.presence.started(tag.id, session, Date.parse(now)));
    return this.tokenFor(view.id);
  }

  private sourceOf(scan: boolean, referrer: string | null, host: string): ViewSource {
    if (scan) return 'qr_scan';
    if (!referrer) return 'direct';
    try {
      return new URL(referrer).host === host ? 'direct' : 'referral';
    } catch {
      return 'direct';
    }
  }

  /** A view id with an HMAC, so only the page that was served can report its time. */
  tokenFor(viewId: string): string {
    return `${viewId}.${this.mac(viewId)}`;
  }

  /**
   * SHA3-256 of the key and the view id, 132 bits of it. A SHA-3 hash is not open to length
   * extension, so a secret prefix makes it a MAC (KMAC, SP 800-185, is built so); one call
   * costs less than an HMAC object made per view (src/perf/README.md).
   */
  private mac(viewId: string): string {
    return hash('sha3-256', `${this.beaconKey}\n${viewId}`, 'base64url').slice(0, 22);
  }

  private viewIdOf(token: string): string | undefined {
    const [viewId, mac] = token.split('.');
    if (!viewId || !mac) return undefined;
    const expected = Buffer.from(this.mac(viewId));
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given) ? viewId : undefined;
  }

  /**
   * A beacon: the time spent so far (it only grows) and a heartbeat for real-time presence.
   * Returns false for an unknown or forged token.
   */
  async beacon(token: string, durationSeconds: number): Promise<boolean> {
    const viewId = this.viewIdOf(token);
    if (!viewId) return false;
    let view = await repo.findView(this.ctx.db, viewId);
    if (!view) {
      // A view answered moments ago may still be in the inbox: once ingested, it is found.
      await rollUpViews(this.ctx.db);
      view = await repo.findView(this.ctx.db, viewId);
    }
    if (!view) return false;
    const seconds = Math.min(Math.max(0, Math.round(durationSeconds)), MAX_DURATION_SECONDS);
    if (view.duration_seconds === null || seconds > view.duration_seconds) {
      // Re-read under a lock: another beacon of this view may be applying its time right now.
      await transaction(this.ctx.db, (trx) =>
        repo.growViewDuration(trx, { id: view.id, tag_id: view.tag_id, hour: hourOf(view.occurred_at) }, seconds),
      );
    }
    const session = { id: view.id, started_at: view.occurred_at, device: view.device, country: view.country, visitor: view.visitor };
    await this.present(this.ctx.presence.touch(view.tag_id, session, this.ctx.clock.now().getTime()));
    return true;
  }
}

/** The longest UTM parameter kept: longer ones are cut. */
const MAX_UTM_LENGTH = 200;

/** One utm_* parameter as kept: trimmed and cut, or null when absent, empty or repeated. */
function utmParameter(query: Record<string, unknown>, name: string): string | null {
  const value = query[name];
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed.slice(0, MAX_UTM_LENGTH);
}

/** The campaign a page address names with its utm_source, utm_medium and utm_campaign parameters. */
export function campaignOf(query: unknown): Pick<RecordedView, 'utm_source' | 'utm_medium' | 'utm_campaign'> {
  if (typeof query !== 'object' || query === null) return { utm_source: null, utm_medium: null, utm_campaign: null };
  const parameters = query as Record<string, unknown>;
  return {
    utm_source: utmParameter(parameters, 'utm_source'),
    utm_medium: utmParameter(parameters, 'utm_medium'),
    utm_campaign: utmParameter(parameters, 'utm_campaign'),
  };
}

/**
 * The part of a Referer kept with a view (and shown in access logs): its origin and path. The
 * query string and fragment often carry the visitor's search terms, emails or session tokens,
 * and credentials have no business in a log. A referrer that is not an http(s) URL is not kept.
 */
export function referrerToKeep(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  let url: URL;
  try {
    url = new URL(header);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return `${url.origin}${url.pathname}`.slice(0, 2048);
}
