import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The dashboard, the public upload page and the server-rendered pages' script: three entries, hashed file names, and a manifest the web
// process reads to link them (scripts/build.mjs passes --outDir; the web serves it under /app/).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    manifest: true,
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    rollupOptions: {
      input: {
        dashboard: fileURLToPath(new URL('src/dashboard.tsx', import.meta.url)),
        upload: fileURLToPath(new URL('src/upload-page.tsx', import.meta.url)),
        site: fileURLToPath(new URL('src/site.tsx', import.meta.url)),
      },
    },
  },
});
