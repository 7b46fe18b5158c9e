import { every, pickOf, type SoakContext } from './context.js';
import type { TrackedFile } from './ledger.js';

const PAGE = 25;

/** Holds `file` for the length of `work`: nothing else reads, changes or removes it meanwhile. */
export async function holding<T>(file: TrackedFile, work: () => Promise<T>): Promise<T> {
  file.busy = true;
  try {
    return await work();
  } finally {
    file.busy = false;
  }
}

/**
 * The hot files, about 20 times a second, three in ten revalidated with their ETag (304) as a browser
 * does (max-age=0: fetch would add no-cache to a conditional request, which no cache may answer 304).
 */
export function hotServing(ctx: SoakContext): Promise<void> {
  return every(ctx, 'serve-hot', 50, async () => {
    const file = ctx.ledger.present.pick((f) => f.hot);
    if (!file) return;
    if (file.etag && Math.random() < 0.3) await ctx.client.call('serve-304', ctx.client.fileUrl(file), { headers: { 'if-none-match': file.etag, 'cache-control': 'max-age=0' } }, [304]);
    else await ctx.client.read('serve-hot', file);
  });
}

/** Any other present file, 5 times a second: mostly read once in a while, so mostly from disk. */
export function coldServing(ctx: SoakContext): Promise<void> {
  return every(ctx, 'serve-cold', 200, async () => {
    const file = ctx.ledger.present.pick((f) => !f.hot && !f.busy);
    if (file) await holding(file, () => ctx.client.read('serve-cold', file));
  });
}

/** Renditions (`?w=320&format=webp`, some 640) of uploaded photos, twice a second: made on first request, then stored. */
export function renditions(ctx: SoakContext): Promise<void> {
  return every(ctx, 'rendition', 500, async () => {
    const file = ctx.ledger.present.pick((f) => f.image && !f.busy);
    if (!file) return;
    const width = pickOf([320, 320, 640]);
    await holding(file, async () => {
      const res = await ctx.client.call('rendition', ctx.client.fileUrl(file, ctx.client.web(), `?w=${width}&format=webp`), {});
      if (res?.ok && res.headers.get('content-type') !== 'image/webp') ctx.recorder.fault('rendition', `${file.filename}?w=${width}: ${res.headers.get('content-type')}`);
    });
  });
}

interface DashboardPage {
  data: { uploads: { filename: string }[]; pagination: { totalPages: number } };
}

/** The dashboard twice a second: page 1, a deep page, a folder sorted by size, and a search for one file that must find it. */
export function dashboard(ctx: SoakContext): Promise<void> {
  const totalPages = new Map<string, number>();
  let n = 0;
  return every(ctx, 'dashboard', 500, async () => {
    n += 1;
    const account = pickOf(ctx.accounts);
    const url = (query: Record<string, string>) => `${ctx.client.web()}/api/user/dashboard?${new URLSearchParams({ limit: String(PAGE), ...query })}`;
    if (n % 4 === 3) {
      const file = ctx.ledger.present.pick((f) => f.account === account && !f.busy);
      if (!file) return;
      await holding(file, async () => {
        const res = await ctx.client.call('dashboard-search', url({ search: file.filename }), { key: account.apiKey });
        if (!res?.ok) return;
        const page = JSON.parse(res.body.toString()) as DashboardPage;
        if (!page.data.uploads.some((u) => u.filename === file.filename)) ctx.recorder.fault('dashboard-search', `${account.username}: search for ${file.filename} did not list it`);
      });
      return;
    }
    const query: Record<string, string> =
      n % 4 === 0
        ? { page: '1' }
        : n % 4 === 1
          ? { page: String(1 + Math.floor(Math.random() * (totalPages.get(account.username) ?? 1))) }
          : { folderId: pickOf(account.folderIds), sortBy: 'size', sortOrder: 'asc' };
    const res = await ctx.client.call('dashboard', url(query), { key: account.apiKey });
    if (res?.ok && !('folderId' in query)) totalPages.set(account.username, Math.max(1, (JSON.parse(res.body.toString()) as DashboardPage).data.pagination.totalPages));
  });
}
