import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';

// Baseline for serving: the least a Node server does to send a file — its bytes from memory with
// type, length and validators, and 304 to a matching If-None-Match. No disk, no database, no
// routing beyond the last path segment. The serve bench starts it as its own process.
const dir = process.env.FILES_DIR!;
const TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg' };
const files = new Map(
  readdirSync(dir).map((name) => {
    const file = path.join(dir, name);
    const { size, mtime } = statSync(file);
    const headers = {
      'content-type': TYPES[path.extname(name)] ?? 'application/octet-stream',
      'content-length': String(size),
      etag: `"${size.toString(16)}-${mtime.getTime().toString(16)}"`,
      'last-modified': mtime.toUTCString(),
    };
    return [name, { bytes: readFileSync(file), headers }] as const;
  }),
);

const server = createServer((req, res) => {
  const file = files.get(decodeURIComponent(req.url!.slice(req.url!.lastIndexOf('/') + 1)));
  if (!file) return res.writeHead(404).end();
  if (req.headers['if-none-match'] === file.headers.etag) return res.writeHead(304, { etag: file.headers.etag }).end();
  res.writeHead(200, file.headers).end(file.bytes);
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
