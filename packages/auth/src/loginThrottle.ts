/**
 * Login attempts per email and client address (docs/decisions.md "Identity and tenancy"): without a bound, anyone
 * could guess a password online as fast as scrypt answers. Attempts are counted when they start, so parallel guesses
 * count too; a successful login clears the count. Another address keeps logging in to the account, so a stranger
 * cannot lock its owner out.
 */
export const MAX_LOGIN_ATTEMPTS = 10;
export const LOGIN_WINDOW_MS = 15 * 60_000;
/** Entries kept; the oldest goes first. Filling it takes that many scrypt checks, so it cannot reset a count cheaply. */
const MAX_TRACKED = 100_000;

export class LoginThrottle {
  private readonly attempts = new Map<string, { count: number; windowEnds: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts an attempt and answers 0, or answers the seconds to wait when `address` has used up its attempts at `email`. */
  attempt(email: string, address: string): number {
    const key = attemptKey(email, address);
    const now = this.now();
    const entry = this.attempts.get(key);
    if (entry && entry.windowEnds > now) {
      if (entry.count >= MAX_LOGIN_ATTEMPTS) return Math.ceil((entry.windowEnds - now) / 1000);
      entry.count += 1;
      return 0;
    }
    this.attempts.delete(key);
    this.attempts.set(key, { count: 1, windowEnds: now + LOGIN_WINDOW_MS });
    if (this.attempts.size > MAX_TRACKED) this.attempts.delete(this.attempts.keys().next().value!);
    return 0;
  }

  succeeded(email: string, address: string): void {
    this.attempts.delete(attemptKey(email, address));
  }
}

/** Emails match in any letter case, as accounts do. */
const attemptKey = (email: string, address: string): string => `${email.trim().toLowerCase()}\u0000${address}`;
