import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

// The MCP Apps (src/mcp-apps): each is one HTML file with its script and styles inline, as hosts load
// a ui:// resource into a sandbox that may fetch nothing else. The plugin takes one input per build,
// so scripts/build.mjs builds them one by one with this config, passing the input and --outDir.
export default defineConfig({
  root: fileURLToPath(new URL('src/mcp-apps', import.meta.url)),
  base: './',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  plugins: [viteSingleFile()],
  build: { emptyOutDir: false, target: 'es2022' },
});
