import type { AccountRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import type { RateLimits } from '../../rate-limits.js';
import type { AccountRepository } from '../../repositories/account.repository.js';
import type { AccountService } from './account.service.js';
import type { CaptchaService } from './captcha.service.js';
import { hashPassword, verifyPassword } from './password.js';
import type { SessionService } from './session.service.js';

export interface Registration {
  username: string;
  email: string;
  password: string;
  captchaToken?: unknown;
}

export interface Credentials {
  username: string;
  password: string;
  captchaToken?: unknown;
}

const INVALID_CREDENTIALS = 'Invalid username or password';

export interface SignInContext {
  ip: string;
  userAgent: string | null;
}

/** Registration and sign-in with a captcha; the answer carries the profile and a session token. */
export class AuthService {
  // Verified against when the user does not exist, so both failures cost the same time.
  private readonly decoyHash = hashPassword('decoy password that never matches');

  constructor(
    private readonly deps: {
      accounts: AccountService;
      accountRows: AccountRepository;
      captcha: CaptchaService;
      sessions: SessionService;
      rateLimits: RateLimits;
    },
  ) {}

  async register({ username, email, password, captchaToken }: Registration, context: SignInContext) {
    await this.deps.rateLimits.registrationsByIp.consume(context.ip);
    await this.deps.captcha.consume(captchaToken);
    const { account } = await this.deps.accounts.create({ username, email, password });
    return this.signedIn((await this.deps.accountRows.findById(account.id))!, context);
  }

  /** Unknown user and wrong password answer alike (401); failures are limited per IP and username. */
  async login({ username, password, captchaToken }: Credentials, context: SignInContext) {
    const { loginFailuresByIp, loginFailuresByUser } = this.deps.rateLimits;
    const userKey = username.toLowerCase();
    await loginFailuresByIp.assertUnder(context.ip);
    await loginFailuresByUser.assertUnder(userKey);
    await this.deps.captcha.consume(captchaToken);

    const account = await this.deps.accountRows.findByUsername(userKey);
    const hash = account?.passwordHash ?? (await this.decoyHash);
    if (!(await verifyPassword(password, hash)) || !account?.passwordHash) {
      await loginFailuresByIp.consume(context.ip).catch(() => undefined);
      await loginFailuresByUser.consume(userKey).catch(() => undefined);
      throw AppError.unauthorized(INVALID_CREDENTIALS);
    }
    if (account.status === 'banned') {
      throw new AppError(403, 'banned', 'This account is banned', { banInfo: this.deps.accounts.banInfoOf(account) });
    }
    await loginFailuresByUser.reset(userKey);
    return this.signedIn(account, context);
  }

  async logout(token: string): Promise<void> {
    await this.deps.sessions.end(token);
  }

  private async signedIn(account: AccountRow, context: SignInContext) {
    const session = await this.deps.sessions.create(account.id, context.userAgent);
    return { user: this.deps.accounts.summary(account), sessionToken: session.token, expiresAt: session.expiresAt };
  }
}
