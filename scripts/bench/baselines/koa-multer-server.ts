import multer from '@koa/multer';
import Koa from 'koa';

// Baseline: a bare Koa app whose multer writes each upload to disk, with nothing else to do. It
// answers with the file's path (the bench removes big files, as the pipe baseline's).
const app = new Koa();
const upload = multer({ storage: multer.diskStorage({ destination: process.env.UPLOAD_DIR! }) });
app.use(upload.single('file'));
app.use((ctx) => {
  ctx.body = (ctx.file as { path: string }).path;
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
