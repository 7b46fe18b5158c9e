import { ChartColumn, FolderOpen, Inbox, Settings } from 'lucide';
import { Icon } from '../../views/icon.js';
import { SiteHeader } from '../../views/site-header.js';
import { DropsPage } from './drops/drops-page.js';
import { FilePage } from './files/file-page.js';
import { FilesPage } from './files/files-page.js';
import { NotificationBell } from './notifications/bell.js';
import { PollsPage } from './polls/polls-page.js';
import { onLinkClick, useLocation } from './router.js';
import { session } from './session.js';
import { SettingsPage } from './settings/settings-page.js';
import { ToastProvider } from './toasts/toasts.js';

const NAV = [
  { href: '/dashboard', label: 'Files', icon: FolderOpen },
  { href: '/dashboard/drops', label: 'Drop links', icon: Inbox },
  { href: '/dashboard/polls', label: 'Polls', icon: ChartColumn },
  { href: '/dashboard/settings', label: 'Settings', icon: Settings },
];

/** The signed-in app: header with navigation and the bell, then the page for the path; toasts over all. */
export function App() {
  const { path } = useLocation();
  const filePath = /^\/dashboard\/files\/([^/]+)$/.exec(path);
  let page;
  if (filePath) page = <FilePage filename={decodeURIComponent(filePath[1]!)} />;
  else if (path === '/dashboard/drops') page = <DropsPage />;
  else if (path === '/dashboard/polls') page = <PollsPage />;
  else if (path === '/dashboard/settings') page = <SettingsPage />;
  else page = <FilesPage />;
  const current = filePath ? '/dashboard' : path;
  return (
    <ToastProvider>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <SiteHeader
        account={session()}
        back={path}
        nav={
          <nav aria-label="Dashboard" class="sections">
            {NAV.map((item) => (
              <a key={item.href} href={item.href} onClick={onLinkClick} aria-current={current === item.href ? 'page' : undefined}>
                <Icon icon={item.icon} />
                {item.label}
              </a>
            ))}
          </nav>
        }
        extra={<NotificationBell />}
      />
      <main id="content" class="app-main">
        {page}
      </main>
    </ToastProvider>
  );
}
