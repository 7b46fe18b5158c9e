import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ShareLink } from '../../contracts/share-link.contract.js';
import { type SecretBox, safeEqual, sha256 } from '../../crypto.js';
import type { FileRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../principal.js';
import type { RateLimit } from '../../rate-limits.js';
import type { FileRepository } from '../../repositories/file.repository.js';
import type { FolderRepository } from '../../repositories/folder.repository.js';
import type { AlbumRow } from '../../repositories/public-file.repository.js';
import type { ShareLinkRepository, ShareLinkWithTarget } from '../../repositories/share-link.repository.js';
import { hashPassword, verifyPassword } from '../accounts/password.js';
import type { HostedFileService } from '../files/hosted-file.service.js';
import type { AlbumService, AlbumView, AlbumZip } from './album.service.js';
import { isId } from './folder.service.js';

// HMAC-SHA256 in base64url: 256 bits, 43 characters. Anything else names no link.
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export const createShareLinkSchema = z
  .object({
    filename: z.string().min(1).max(255).optional().describe('the file to share (exactly one of filename and folderId)'),
    folderId: z.string().max(64).optional().describe('the folder to share: an album of its files, private ones included'),
    expiresIn: z.number().int().min(60, 'expiresIn is at least 60 seconds').max(31_536_000, 'expiresIn is at most a year (31536000 seconds)').optional().describe('seconds the link works; omitted: never expires'),
    maxViews: z.number().int().min(1, 'maxViews is at least 1').max(1_000_000, 'maxViews is at most 1000000').optional().describe('whole bodies the link serves (200, or 206 from byte 0)'),
    password: z.string().min(4, 'password is at least 4 characters').max(128, 'password is at most 128 characters').optional().describe('asked before anything is shown'),
  })
  .refine((input) => (input.filename === undefined) !== (input.folderId === undefined), { message: 'Give exactly one of filename and folderId', path: ['filename'] });
export type CreateShareLinkInput = z.output<typeof createShareLinkSchema>;

/** A link as a visitor opened it: live (not expired, views left), its target found. */
export interface OpenShareLink {
  id: string;
  url: string;
  hasPassword: boolean;
  /** a file link's file, servable now */
  file: FileRow | null;
  /** a folder link's folder */
  folder: AlbumRow | null;
  passwordHash: string | null;
}

/** What a visitor brings: a password (form or x-share-password), the link's cookie, their address. */
export interface ShareCredentials {
  password?: string | undefined;
  cookie?: string | undefined;
  ip: string;
}

/**
 * Share links: one file or one folder, private files included, behind an unguessable link with
 * optional expiry, view limit and password. Links are never cached: each request reads PostgreSQL,
 * so a revoked link is gone on every web process as soon as the DELETE commits.
 */
export class ShareLinkService {
  constructor(
    private readonly deps: {
      links: ShareLinkRepository;
      files: FileRepository;
      folders: FolderRepository;
      albums: AlbumService;
      hosted: HostedFileService;
      box: SecretBox;
      wrongPasswords: RateLimit;
      siteUrl: string;
    },
  ) {}

  async create(account: Principal, input: CreateShareLinkInput): Promise<ShareLink> {
    const fileId = input.filename !== undefined ? (await this.deps.files.findOwned(account.id, input.filename))?.id : null;
    const folderId = input.folderId !== undefined ? (isId(input.folderId) ? await this.deps.folders.find(account.id, input.folderId) : undefined)?.id : null;
    if (fileId === undefined) throw AppError.notFound('File not found');
    if (folderId === undefined) throw AppError.notFound('Folder not found');
    const nonce = randomBytes(16).toString('base64url');
    const link = await this.deps.links.create({
      accountId: account.id,
      fileId,
      folderId,
      tokenHash: sha256(this.tokenOf(nonce)),
      tokenNonce: nonce,
      passwordHash: input.password !== undefined ? await hashPassword(input.password) : null,
      maxViews: input.maxViews ?? null,
      expiresAt: input.expiresIn !== undefined ? new Date(Date.now() + input.expiresIn * 1000) : null,
    });
    return this.view({ link, filename: input.filename ?? null, username: account.username });
  }

  async list(account: Principal): Promise<ShareLink[]> {
    return (await this.deps.links.listOwned(account.id)).map((row) => this.view(row));
  }

  /** Deletes the link: the next request for it, on any web process, is 404. */
  async revoke(account: Principal, id: string): Promise<void> {
    if (!isId(id) || !(await this.deps.links.deleteOwned(account.id, id))) throw AppError.notFound('Share link not found');
  }

  /** The link behind a token: 404 unknown or revoked, 410 expired or out of views. */
  async open(token: string): Promise<OpenShareLink> {
    const row = TOKEN_SHAPE.test(token) ? await this.deps.links.findByTokenHash(sha256(token)) : undefined;
    if (!row) throw AppError.notFound('Share link not found');
    const { link } = row;
    if (link.expiresAt && link.expiresAt.getTime() <= Date.now()) throw gone('This share link has expired');
    if (link.maxViews !== null && link.views >= link.maxViews) throw gone('This share link has no views left');
    const folder = link.folderId ? await this.deps.folders.find(link.accountId, link.folderId) : undefined;
    return {
      id: link.id,
      url: this.urlOf(token),
      hasPassword: link.passwordHash !== null,
      file: link.fileId ? this.deps.hosted.servable(row.file) : null,
      folder: folder ? { ...folder, username: row.username } : null,
      passwordHash: link.passwordHash,
    };
  }

  /**
   * Lets the visitor in, or says why not: 401 without the password or with a wrong one (each wrong
   * one counted per link and address), 429 past 10 wrong tries in 10 minutes.
   */
  async authorize(link: OpenShareLink, credentials: ShareCredentials): Promise<void> {
    if (!link.passwordHash) return;
    if (credentials.cookie && safeEqual(credentials.cookie, this.passOf(link))) return;
    if (credentials.password === undefined) throw new AppError(401, 'password_required', 'This share link needs its password');
    const key = `${link.id}:${credentials.ip}`;
    await this.deps.wrongPasswords.assertUnder(key);
    if (await verifyPassword(credentials.password, link.passwordHash)) return;
    await this.deps.wrongPasswords.consume(key);
    throw new AppError(401, 'wrong_password', 'Wrong password');
  }

  /** What the link's cookie holds once its password was given: an HMAC of the link's id, not the password. */
  passOf(link: Pick<OpenShareLink, 'id'>): string {
    return this.deps.box.sign(`share-link-pass:${link.id}`);
  }

  /** Counts one view (a whole body about to be sent); 410 when none is left or the link just expired. */
  async countView(link: OpenShareLink): Promise<void> {
    if (!(await this.deps.links.countView(link.id)).ok) throw gone('This share link has no views left');
  }

  /** A folder link's file by name: only files of that folder, private ones included. */
  async fileOf(link: OpenShareLink, filename: string): Promise<FileRow> {
    const folder = this.folderOf(link);
    const file = await this.deps.files.findOwned(folder.accountId, filename);
    return this.deps.hosted.servable(file?.folderId === folder.id ? file : undefined);
  }

  page(link: OpenShareLink, page: number): Promise<AlbumView> {
    return this.deps.albums.linkPage(this.folderOf(link), link.url, page);
  }

  zip(link: OpenShareLink): Promise<AlbumZip> {
    return this.deps.albums.linkZip(this.folderOf(link));
  }

  private folderOf(link: OpenShareLink): AlbumRow {
    if (!link.folder) throw AppError.notFound('Not found');
    return link.folder;
  }

  private tokenOf(nonce: string): string {
    return this.deps.box.sign(`share-link:${nonce}`);
  }

  private urlOf(token: string): string {
    return `${this.deps.siteUrl}/l/${token}`;
  }

  private view({ link, filename }: ShareLinkWithTarget): ShareLink {
    return {
      id: link.id,
      url: this.urlOf(this.tokenOf(link.tokenNonce)),
      type: link.fileId ? 'file' : 'folder',
      filename: link.fileId ? filename : null,
      folderId: link.folderId,
      expiresAt: link.expiresAt?.toISOString() ?? null,
      maxViews: link.maxViews,
      views: link.views,
      hasPassword: link.passwordHash !== null,
      createdAt: link.createdAt.toISOString(),
    };
  }
}

function gone(message: string) {
  return new AppError(410, 'gone', message);
}
