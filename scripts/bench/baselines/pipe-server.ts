import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

// Baseline: the least a server can do with an upload — pipe the request body to a file, answer 200.
// The file is removed after the answer, so deleting it is not counted (the service's are not either).
const dir = process.env.UPLOAD_DIR!;
let n = 0;
const server = createServer((req, res) => {
  const file = path.join(dir, String(n++));
  pipeline(req, createWriteStream(file, { highWaterMark: 1024 * 1024 })).then(
    () => res.end('ok', () => void rm(file)),
    () => res.writeHead(500).end(),
  );
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
