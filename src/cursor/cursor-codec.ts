/**
 * Cursor tokens: stateless, compressed, signed.
 *
 *   token   = "q1." kid "." base64url(deflateRaw(JSON payload)) "." base64url(HMAC-SHA256(secret[kid], "q1." kid "." body))
 *
 * The version prefix comes first and outside the MAC so a token from a future (or past) format is
 * told apart from a forged one and gets its own error. The key id lets a server rotate secrets: it
 * signs with its current key and still verifies tokens signed with the older keys it was given.
 * The payload is signed, not encrypted: it holds the client's own SQL text, parameters and the sort
 * key of the last row it was sent, nothing the client has not seen (see the README for AES-GCM as a
 * possible extension when key values must stay hidden).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { PagingError } from './errors.js';

export const CURSOR_VERSION = 'q1';
/** Upper bound on an inflated payload: a decompression bomb must not get further than this. */
const MAX_PAYLOAD_BYTES = 1 << 20;
/**
 * A payload is a few hundred bytes: zlib's default 32 KiB window and memory level only cost set-up time
 * (about twice the time for the same output). Any inflater reads a stream made with a smaller window.
 */
const DEFLATE_OPTIONS = { memLevel: 2, windowBits: 10 } as const;
/** Upper bound on the token text itself (the REST body limit is larger; this keeps work per token small). */
export const MAX_TOKEN_CHARS = 256 * 1024;

export interface CursorKey {
  /** Short identifier written into tokens, [A-Za-z0-9_-]{1,16}. */
  id: string;
  /** At least 16 bytes; a string is used as its UTF-8 bytes. */
  secret: Uint8Array | string;
}

export interface CursorCodecOptions {
  /** Signing keys; the first one signs, all of them verify. Default: one random key (tokens die with the process). */
  keys?: readonly CursorKey[];
  /** Clock for expiry checks, injectable for tests. */
  now?: () => number;
}

export class CursorCodec {
  private readonly keys = new Map<string, Buffer>();
  private readonly signingKey: string;
  private readonly now: () => number;

  constructor(opts: CursorCodecOptions = {}) {
    const keys = opts.keys && opts.keys.length > 0 ? opts.keys : [{ id: 'k0', secret: randomBytes(32) }];
    for (const k of keys) {
      if (!/^[A-Za-z0-9_-]{1,16}$/.test(k.id)) throw new Error(`cursor key id must match [A-Za-z0-9_-]{1,16}: ${JSON.stringify(k.id)}`);
      const secret = typeof k.secret === 'string' ? Buffer.from(k.secret, 'utf8') : Buffer.from(k.secret);
      if (secret.length < 16) throw new Error('cursor secret must be at least 16 bytes');
      this.keys.set(k.id, secret);
    }
    this.signingKey = keys[0]!.id;
    this.now = opts.now ?? Date.now;
  }

  currentTime(): number {
    return this.now();
  }

  /** Signs a payload. `exp` (ms since epoch) is stored in it and checked by `decode`. */
  encode(payload: { exp: number } & Record<string, unknown>): string {
    const body = deflateRawSync(Buffer.from(JSON.stringify(payload), 'utf8'), DEFLATE_OPTIONS).toString('base64url');
    const head = `${CURSOR_VERSION}.${this.signingKey}.${body}`;
    return `${head}.${this.mac(this.signingKey, head).toString('base64url')}`;
  }

  /** Verifies and opens a token; throws PagingError (never anything else) when it is not ours or not usable. */
  decode(token: unknown, opts: { ignoreExpiry?: boolean } = {}): Record<string, unknown> {
    if (typeof token !== 'string' || token.length === 0) throw invalid('cursor must be a non-empty string');
    if (token.length > MAX_TOKEN_CHARS) throw invalid('cursor is too long');
    const parts = token.split('.');
    if (parts[0] !== CURSOR_VERSION) {
      if (parts.length === 4 && /^q\d+$/.test(parts[0]!)) {
        throw new PagingError('CursorVersion', `cursor version ${parts[0]} is not supported by this server (expected ${CURSOR_VERSION})`, {
          hint: 'Run the query again to get a new cursor.',
        });
      }
      throw invalid('not a cursor issued by this server');
    }
    if (parts.length !== 4) throw invalid('malformed cursor');
    const [v, kid, body, sig] = parts as [string, string, string, string];
    const secret = this.keys.get(kid);
    if (secret === undefined) throw invalid('cursor was signed with an unknown key');
    const expected = this.mac(kid, `${v}.${kid}.${body}`);
    const given = Buffer.from(sig, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid('cursor signature does not match');
    let payload: unknown;
    try {
      const raw = inflateRawSync(Buffer.from(body, 'base64url'), { maxOutputLength: MAX_PAYLOAD_BYTES });
      payload = JSON.parse(raw.toString('utf8'));
    } catch {
      throw invalid('cursor payload is unreadable');
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw invalid('cursor payload is unreadable');
    const p = payload as Record<string, unknown>;
    if (typeof p.exp !== 'number') throw invalid('cursor has no expiry');
    if (!opts.ignoreExpiry && p.exp <= this.now()) {
      throw new PagingError('CursorExpired', `cursor expired at ${new Date(p.exp).toISOString()}`, { hint: 'Run the query again, or ask for a longer keep_alive.' });
    }
    return p;
  }

  private mac(kid: string, text: string): Buffer {
    return createHmac('sha256', this.keys.get(kid)!).update(text).digest();
  }
}

function invalid(why: string): PagingError {
  return new PagingError('CursorInvalid', `invalid cursor: ${why}`);
}
