import { createWriteStream } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

// Baseline: the least a server can do with an upload — pipe the request body to a file, answer 200
// with the file's path. The bench removes the file before the next upload starts, as it waits for the
// service's deletion: a removal still running would slow whoever comes next.
const dir = process.env.UPLOAD_DIR!;
let n = 0;
const server = createServer((req, res) => {
  const file = path.join(dir, String(n++));
  pipeline(req, createWriteStream(file, { highWaterMark: 1024 * 1024 })).then(
    () => res.end(file),
    () => res.writeHead(500).end(),
  );
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
