/**
 * SCRAM-SHA-256 (RFC 5802 / 7677) server side, as PostgreSQL speaks it: no channel binding (the
 * listener has no TLS), the user name comes from the startup packet (the SCRAM "n=" is ignored,
 * as PostgreSQL does).
 *
 * The salted password is derived once per server (PBKDF2 is deliberately slow); each connection only
 * computes HMACs.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

export const SCRAM_ITERATIONS = 4096;

export interface ScramSecret {
  salt: Buffer;
  iterations: number;
  storedKey: Buffer;
  serverKey: Buffer;
}

const hmac = (key: Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();
const sha256 = (b: Buffer): Buffer => createHash('sha256').update(b).digest();

export function makeScramSecret(password: string, salt = randomBytes(16), iterations = SCRAM_ITERATIONS): ScramSecret {
  // SASLprep is approximated by NFKC normalisation, which covers what clients send in practice.
  const salted = pbkdf2Sync(Buffer.from(password.normalize('NFKC'), 'utf8'), salt, iterations, 32, 'sha256');
  return { salt, iterations, storedKey: sha256(hmac(salted, 'Client Key')), serverKey: hmac(salted, 'Server Key') };
}

export class ScramError extends Error {}

/** One authentication exchange. */
export class ScramExchange {
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';
  private gs2Header = '';
  done = false;

  constructor(private readonly secret: ScramSecret) {}

  /** SASLInitialResponse payload -> server-first-message. */
  start(clientFirst: string): string {
    // gs2-header: "n,," (no channel binding) or "y,," (client could bind but thinks we cannot).
    const m = /^([ny]),(a=[^,]*)?,(.*)$/.exec(clientFirst);
    if (!m) {
      if (clientFirst.startsWith('p=')) throw new ScramError('channel binding is not supported by this server');
      throw new ScramError('malformed SCRAM message');
    }
    this.gs2Header = `${m[1]},${m[2] ?? ''},`;
    this.clientFirstBare = m[3]!;
    const attrs = parseAttrs(this.clientFirstBare);
    const cnonce = attrs.get('r');
    if (cnonce === undefined || cnonce === '' || attrs.has('m')) throw new ScramError('malformed SCRAM message');
    this.nonce = cnonce + randomBytes(18).toString('base64');
    this.serverFirst = `r=${this.nonce},s=${this.secret.salt.toString('base64')},i=${this.secret.iterations}`;
    return this.serverFirst;
  }

  /** SASLResponse payload -> server-final-message; throws ScramError when the proof is wrong. */
  finish(clientFinal: string): string {
    const i = clientFinal.lastIndexOf(',p=');
    if (i < 0) throw new ScramError('malformed SCRAM message');
    const withoutProof = clientFinal.slice(0, i);
    const attrs = parseAttrs(withoutProof);
    if (attrs.get('c') !== Buffer.from(this.gs2Header).toString('base64')) throw new ScramError('SCRAM channel binding check failed');
    if (attrs.get('r') !== this.nonce) throw new ScramError('SCRAM nonce mismatch');
    const proof = Buffer.from(clientFinal.slice(i + 3), 'base64');
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const signature = hmac(this.secret.storedKey, authMessage);
    if (proof.length !== signature.length) throw new ScramError('password authentication failed');
    const clientKey = Buffer.alloc(proof.length);
    for (let k = 0; k < proof.length; k++) clientKey[k] = proof[k]! ^ signature[k]!;
    if (!timingSafeEqual(sha256(clientKey), this.secret.storedKey)) throw new ScramError('password authentication failed');
    this.done = true;
    return `v=${hmac(this.secret.serverKey, authMessage).toString('base64')}`;
  }
}

function parseAttrs(s: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of s.split(',')) {
    const eq = part.indexOf('=');
    if (eq === 1) out.set(part[0]!, part.slice(2));
  }
  return out;
}
