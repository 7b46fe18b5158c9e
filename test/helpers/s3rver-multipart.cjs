// The three multipart calls s3rver 3 lacks and @tus/s3-store makes: ListParts, AbortMultipartUpload
// and ListMultipartUploads, answered from s3rver's own upload directories (<bucket>/._S3rver_uploads/<id>/
// holding `key`, `metadata` and one file per part), so what they report is what s3rver really holds.
const fs = require('node:fs/promises');
const path = require('node:path');

const xmlEscape = (value) => String(value).replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

function xml(ctx, root, inner) {
  ctx.type = 'application/xml';
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${inner}</${root}>`;
}

function noSuchUpload(ctx, uploadId) {
  ctx.status = 404;
  xml(ctx, 'Error', `<Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message><UploadId>${xmlEscape(uploadId)}</UploadId>`);
}

async function uploadsOf(directory, bucket) {
  const root = path.join(directory, bucket, '._S3rver_uploads');
  const ids = await fs.readdir(root).catch(() => []);
  const uploads = [];
  for (const id of ids) {
    const dir = path.join(root, id);
    const key = await fs.readFile(path.join(dir, 'key'), 'utf8').catch(() => undefined);
    if (key === undefined) continue;
    uploads.push({ id, dir, key, initiated: (await fs.stat(dir)).birthtime });
  }
  return uploads;
}

async function partsOf(dir) {
  const names = (await fs.readdir(dir)).filter((name) => /^\d+$/.test(name));
  const parts = [];
  for (const name of names) {
    const stat = await fs.stat(path.join(dir, name));
    const md5 = await fs.readFile(path.join(dir, `${name}.md5`), 'utf8').catch(() => '');
    parts.push({ number: Number(name), size: stat.size, etag: `"${md5}"`, modified: stat.mtime });
  }
  return parts.sort((a, b) => a.number - b.number);
}

module.exports = function multipartExtensions(directory) {
  return async (ctx, next) => {
    const [bucket, ...keyParts] = ctx.path.slice(1).split('/');
    const key = keyParts.map(decodeURIComponent).join('/');
    const uploadId = ctx.query.uploadId;

    if (ctx.method === 'GET' && !key && 'uploads' in ctx.query) {
      const uploads = await uploadsOf(directory, bucket);
      const items = uploads
        .map((u) => `<Upload><Key>${xmlEscape(u.key)}</Key><UploadId>${u.id}</UploadId><Initiated>${u.initiated.toISOString()}</Initiated></Upload>`)
        .join('');
      return xml(ctx, 'ListMultipartUploadsResult', `<Bucket>${xmlEscape(bucket)}</Bucket><IsTruncated>false</IsTruncated>${items}`);
    }
    if (!key || typeof uploadId !== 'string' || 'partNumber' in ctx.query) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'DELETE') return next();

    const upload = (await uploadsOf(directory, bucket)).find((u) => u.id === uploadId && u.key === key);
    if (!upload) return noSuchUpload(ctx, uploadId);
    if (ctx.method === 'DELETE') {
      await fs.rm(upload.dir, { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
    const marker = Number(ctx.query['part-number-marker'] ?? 0);
    const parts = (await partsOf(upload.dir)).filter((p) => p.number > marker);
    const items = parts
      .map((p) => `<Part><PartNumber>${p.number}</PartNumber><LastModified>${p.modified.toISOString()}</LastModified><ETag>${p.etag}</ETag><Size>${p.size}</Size></Part>`)
      .join('');
    return xml(ctx, 'ListPartsResult', `<Bucket>${xmlEscape(bucket)}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${uploadId}</UploadId><IsTruncated>false</IsTruncated>${items}`);
  };
};
