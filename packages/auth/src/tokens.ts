import { isUuid } from '@tlm/core';
import { SignJWT, jwtVerify } from 'jose';

const ALGORITHM = 'HS256';
const ISSUER = 'tlm';
/** DECISIONS.md: 12 hour lifetime. */
export const TOKEN_LIFETIME_SECONDS = 12 * 60 * 60;

/** What a valid token says: whose it is, and the session epoch of that user when it was issued. */
export interface TokenClaims {
  userId: string;
  sessionEpoch: number;
}

/**
 * Dashboard session tokens: HS256 with a server secret, verified with the algorithm pinned and `sub`, `iss`, `iat`
 * and `exp` required; `sev` is the user's session epoch, which log-out and account deletion raise.
 */
export class TokenIssuer {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
  }

  issue(userId: string, sessionEpoch: number): Promise<string> {
    return new SignJWT({ sev: sessionEpoch })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime(`${TOKEN_LIFETIME_SECONDS}s`)
      .sign(this.key);
  }

  /**
   * The claims of a valid token; null for a tampered, expired, foreign or `alg: none` token, and for one missing a
   * required claim or holding a malformed one (a `sub` that is not a user id, a `sev` that is not a whole number).
   */
  async verify(token: string): Promise<TokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: [ALGORITHM], issuer: ISSUER, requiredClaims: ['sub', 'iat', 'exp'] });
      const sessionEpoch = payload['sev'] ?? 0;
      if (typeof payload.sub !== 'string' || !isUuid(payload.sub) || !Number.isSafeInteger(sessionEpoch)) return null;
      return { userId: payload.sub, sessionEpoch: sessionEpoch as number };
    } catch {
      return null;
    }
  }
}
