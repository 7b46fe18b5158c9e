import { createReadStream, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Router } from '@koa/router';
import { AppError } from '../../shared/errors.js';
import type { AppState } from '../state.js';
import { html, type SafeHtml } from './pages/html.js';

// The browser app that `npm run build` bundles with Vite into dist/app (source: api/site/app): its
// manifest names each entry's hashed script and styles, which the pages link and /app/assets serves.

interface ManifestChunk {
  file: string;
  css?: string[];
  imports?: string[];
}

export type AppEntry = 'dashboard' | 'upload-page' | 'site';

const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.map': 'application/json' };

/** dist/app under the repository root, found from this module whether it runs as source or compiled. */
export function appDirectory(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'app');
}

export class AppBundle {
  private manifest: Record<string, ManifestChunk> | undefined;

  constructor(private readonly directory = appDirectory()) {}

  /**
   * The tags that load an entry: its styles, the modules it imports (preloaded) and itself;
   * `origin` prefixes them on hosts that are not the site's, `scripts: false` leaves the scripts out.
   */
  headFor(entry: AppEntry, { origin = '', scripts = true }: { origin?: string; scripts?: boolean } = {}): SafeHtml {
    const manifest = this.load();
    const chunk = manifest[`src/${entry}.tsx`];
    if (!chunk) throw AppError.unavailable('The web app is not built: run npm run build', 60);
    const imports = new Set<string>();
    const css = new Set<string>(chunk.css ?? []);
    const walk = (name: string) => {
      const imported = manifest[name];
      if (!imported || imports.has(imported.file)) return;
      imports.add(imported.file);
      for (const file of imported.css ?? []) css.add(file);
      for (const next of imported.imports ?? []) walk(next);
    };
    for (const name of chunk.imports ?? []) walk(name);
    const styles = html`${[...css].map((file) => html`<link rel="stylesheet" href="${origin}/app/${file}">`)}`;
    if (!scripts) return styles;
    return html`${styles}
${[...imports].map((file) => html`<link rel="modulepreload" href="/app/${file}">`)}
<script type="module" src="/app/${chunk.file}"></script>`;
  }

  /** Serves /app/assets/*: hashed names, so browsers keep them for a year. */
  routes(router: Router<AppState>): void {
    router.get('/app/assets/:file', (ctx) => {
      const file = ctx.params.file ?? '';
      const type = ASSET_TYPES[path.extname(file)];
      const full = path.join(this.directory, 'assets', file);
      if (!/^[\w.-]+$/.test(file) || !type || !existsSync(full)) throw AppError.notFound('Not found');
      ctx.type = type;
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.body = createReadStream(full);
    });
  }

  private load(): Record<string, ManifestChunk> {
    if (!this.manifest) {
      const file = path.join(this.directory, '.vite', 'manifest.json');
      if (!existsSync(file)) throw AppError.unavailable('The web app is not built: run npm run build', 60);
      this.manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, ManifestChunk>;
    }
    return this.manifest;
  }
}
