/**
 * Bounds password guessing. Two brakes, as PostgreSQL's auth_delay and fail2ban-style tools do:
 *
 * - every failed authentication is answered only after `failureDelayMs`, so one connection cannot
 *   try faster than that;
 * - each client address that has failed recently gets its attempts spaced: an attempt waits for the
 *   address's next slot, and each failure widens the gap (`stepMs` per failure, up to `maxGapMs`).
 *   The wait happens before the exchange starts, for right and wrong passwords alike, so opening many
 *   connections in parallel from one address does not multiply the rate, and a waiting connection
 *   tells nothing about whether its password was right. An attempt whose slot is more than
 *   `maxWaitMs` away is refused at once instead of queued, so a flood from one address cannot
 *   park connections (which hold connection slots) for long, nor push the address's queue past
 *   the authentication timeout of a legitimate client behind the same address.
 *
 * State is per address and forgotten `forgetMs` after the last failure (and after a success); the
 * table holds at most `maxAddresses` entries, oldest evicted first.
 */
export interface AuthThrottleOptions {
  failureDelayMs: number;
  stepMs: number;
  maxGapMs: number;
  maxWaitMs: number;
  forgetMs: number;
  maxAddresses: number;
}

export const DEFAULT_AUTH_THROTTLE: AuthThrottleOptions = {
  failureDelayMs: 500,
  stepMs: 250,
  maxGapMs: 2000,
  maxWaitMs: 10_000,
  forgetMs: 10 * 60_000,
  maxAddresses: 10_000,
};

interface Entry {
  failures: number;
  lastFailure: number;
  nextSlot: number;
}

export class AuthThrottle {
  private readonly entries = new Map<string, Entry>();
  readonly opts: AuthThrottleOptions;

  constructor(opts: Partial<AuthThrottleOptions> = {}, private readonly now: () => number = Date.now) {
    this.opts = { ...DEFAULT_AUTH_THROTTLE, ...opts };
  }

  private live(addr: string): Entry | undefined {
    const e = this.entries.get(addr);
    if (e !== undefined && this.now() - e.lastFailure > this.opts.forgetMs) {
      this.entries.delete(addr);
      return undefined;
    }
    return e;
  }

  /**
   * Milliseconds this attempt must wait before it may start (0 for an address with no recent
   * failure), reserving the slot; null when the wait would exceed maxWaitMs (nothing reserved).
   */
  reserve(addr: string): number | null {
    const e = this.live(addr);
    if (e === undefined || e.failures === 0) return 0;
    const now = this.now();
    const slot = Math.max(now, e.nextSlot);
    if (slot - now > this.opts.maxWaitMs) return null;
    e.nextSlot = slot + Math.min(this.opts.maxGapMs, this.opts.stepMs * e.failures);
    return slot - now;
  }

  /** Records a failure; returns how long to hold the answer. */
  failed(addr: string): number {
    const now = this.now();
    const e = this.live(addr) ?? { failures: 0, lastFailure: now, nextSlot: now };
    e.failures++;
    e.lastFailure = now;
    // Re-inserting keeps the map in order of last failure, so eviction drops the stalest address.
    this.entries.delete(addr);
    this.entries.set(addr, e);
    while (this.entries.size > this.opts.maxAddresses) this.entries.delete(this.entries.keys().next().value!);
    return this.opts.failureDelayMs;
  }

  succeeded(addr: string): void {
    this.entries.delete(addr);
  }

  get trackedAddresses(): number {
    return this.entries.size;
  }
}
