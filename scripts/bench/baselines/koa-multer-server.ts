import { rm } from 'node:fs/promises';
import multer from '@koa/multer';
import Koa from 'koa';

// Baseline: a bare Koa app whose multer writes each upload to disk, with nothing else to do.
// REMOVE_AFTER=1 removes each file once answered, like the pipe baseline (for the big uploads).
const app = new Koa();
const upload = multer({ storage: multer.diskStorage({ destination: process.env.UPLOAD_DIR! }) });
app.use(upload.single('file'));
app.use((ctx) => {
  const { path } = ctx.file as { path: string };
  ctx.body = path;
  if (process.env.REMOVE_AFTER) ctx.res.once('finish', () => void rm(path));
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
