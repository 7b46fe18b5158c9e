import { sql } from 'drizzle-orm';
import type { Database } from '../../../shared/db/client.js';

/** Folders the seeded library spreads three in ten of its files over. */
export const SEEDED_FOLDERS = ['Camera roll', 'Screenshots', 'Work', 'Holidays 2023', 'Receipts'];

/**
 * Fills one account's library with `count` files in SQL, as years of uploads would have left it:
 * random stored names (as the service picks them), the names people upload (camera and phone
 * photos, screenshots, pasted images, invoices, memos…), sizes and types to match, one upload every
 * ~90 s in time order, three in ten of them in SEEDED_FOLDERS, all judged by moderation; and the
 * account's counters to match (the folders' the database keeps itself). Links are short ones
 * (`/s/{code}`): a personal subdomain of 127.0.0.1 is no URL. Names that a search finds few of:
 * `passport` (one file in 50,000); many of: `screenshot` (one in five). No objects are stored: a
 * listing never reads them.
 *
 * Loaded as PostgreSQL's "Populating a Database" advises: the table's indexes are dropped and built
 * again after the rows are in (a million rows through a trigram index one at a time take minutes).
 */
export async function seedFiles(db: Database, username: string, count: number): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local maintenance_work_mem = '256MB'`);
    // Every index but those backing constraints (the primary key), exactly as the migrations made it.
    const found = await tx.execute(sql`
      select i.indexname as name, i.indexdef as definition from pg_indexes i
      where i.schemaname = current_schema() and i.tablename = 'files'
        and not exists (select 1 from pg_constraint c where c.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)`);
    const indexes = (found as unknown as { rows: { name: string; definition: string }[] }).rows;
    for (const { name } of indexes) await tx.execute(sql`drop index ${sql.identifier(name)}`);
    await tx.execute(sql`
      insert into folders (account_id, name)
      select a.id, n from accounts a, unnest(array[${sql.join(SEEDED_FOLDERS.map((name) => sql`${name}::text`), sql`, `)}]) n where a.username = ${username}`);
    await tx.execute(sql`
      insert into files (account_id, folder_id, filename, original_name, object_key, short_code, size, sha256, mime_type, source,
                         url_format, deletion_token_hash, moderation_verdict, moderation_score, moderated_at, created_at)
      select a.id,
             case when r.h % 10 < 3 then fo.ids[1 + r.h / 10 % 5] end,
             translate(substr(encode(r.d, 'base64'), 1, 10), '+/', 'Zz') || '.' || k.ext,
             case k.kind
               when 'passport' then 'passport-scan-' || r.g / 50000 || '.pdf'
               when 'pixel' then 'PXL_' || to_char(r.at, 'YYYYMMDD_HH24MISS') || lpad((r.h % 1000)::text, 3, '0') || '.jpg'
               when 'camera' then 'IMG_' || lpad((r.g % 10000)::text, 4, '0') || '.JPG'
               when 'screenshot' then 'Screenshot ' || to_char(r.at, 'YYYY-MM-DD "at" HH24.MI.SS') || '.png'
               when 'video' then 'VID_' || to_char(r.at, 'YYYYMMDD_HH24MISS') || '.mp4'
               when 'pasted' then (array['image.png', 'image0.png', 'unknown.png', 'download.png'])[1 + r.h / 100 % 4]
               when 'invoice' then 'invoice-' || to_char(r.at, 'YYYY') || '-' || lpad((r.g % 10000)::text, 4, '0') || '.pdf'
               when 'gif' then (array['cat', 'dance', 'reaction', 'party'])[1 + r.h / 100 % 4] || '-' || r.g % 997 || '.gif'
               when 'holiday' then 'holiday-beach-' || r.g % 500 || '.webp'
               when 'report' then 'report-Q' || 1 + r.h / 100 % 4 || '-' || to_char(r.at, 'YYYY') || '.docx'
               when 'memo' then 'voice-memo-' || r.g % 3000 || '.mp3'
               else 'backup-' || to_char(r.at, 'YYYY-MM-DD') || '.zip' end,
             'objects/' || md5('o' || r.g)::uuid, 'x' || lpad(to_hex(r.g), 6, '0'),
             floor(k.lo * exp(r.u * ln(k.hi / k.lo)))::bigint, md5(r.g::text) || md5(r.g::text), k.mime,
             (array['web', 'api', 'api', 'mcp', 'url'])[1 + r.h % 5], 'short', md5('d' || r.g),
             'allow', r.h % 20, r.at + interval '2 seconds', r.at
      from accounts a,
           lateral (select array_agg(id order by created_at, name) ids from folders where account_id = a.id) fo,
           -- offset 0 keeps each row's values computed once, not once per use
           lateral (select g, hashint4(g)::bigint + 2147483648 as h, decode(md5(g::text), 'hex') d,
                           (hashint4(g + 1000000007)::bigint + 2147483648) / 4294967296.0 as u,
                           now() - (${count}::int - g) * interval '90 seconds' - (hashint4(-g)::bigint + 2147483648) % 60 * interval '1 second' as at
                    from generate_series(1, ${count}::int) g offset 0) r,
           lateral (select case when r.g % 50000 = 7 then 'passport' when r.h % 100 < 25 then 'pixel' when r.h % 100 < 40 then 'camera'
                                when r.h % 100 < 60 then 'screenshot' when r.h % 100 < 70 then 'video' when r.h % 100 < 75 then 'pasted'
                                when r.h % 100 < 80 then 'invoice' when r.h % 100 < 85 then 'gif' when r.h % 100 < 90 then 'holiday'
                                when r.h % 100 < 95 then 'report' when r.h % 100 < 99 then 'memo' else 'backup' end kind offset 0) kk
           join (values ('passport', 'pdf', 'application/pdf', 50e3, 2e6), ('pixel', 'jpg', 'image/jpeg', 800e3, 8e6),
                        ('camera', 'jpg', 'image/jpeg', 500e3, 6e6), ('screenshot', 'png', 'image/png', 50e3, 3e6),
                        ('video', 'mp4', 'video/mp4', 2e6, 300e6), ('pasted', 'png', 'image/png', 10e3, 2e6),
                        ('invoice', 'pdf', 'application/pdf', 30e3, 500e3), ('gif', 'gif', 'image/gif', 100e3, 15e6),
                        ('holiday', 'webp', 'image/webp', 80e3, 2e6),
                        ('report', 'docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 20e3, 3e6),
                        ('memo', 'mp3', 'audio/mpeg', 200e3, 20e6), ('backup', 'zip', 'application/zip', 1e6, 500e6))
                k(kind, ext, mime, lo, hi) using (kind)
      where a.username = ${username}`);
    for (const { definition } of indexes) await tx.execute(sql.raw(definition));
    // What recording each upload would have kept on the account row.
    await tx.execute(sql`
      update accounts set file_count = c.n, upload_count = c.n, storage_used = c.bytes
      from (select account_id, count(*)::int n, sum(size)::bigint bytes from files group by account_id) c
      where c.account_id = accounts.id and accounts.username = ${username}`);
  });
  // As autovacuum leaves a table that has settled: statistics, and the visibility map index-only scans need.
  await db.execute(sql`vacuum analyze files`);
}
