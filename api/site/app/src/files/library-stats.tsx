import { CalendarCheck, Files, HardDrive } from 'lucide';
import { Icon } from '../../../views/icon.js';
import { formatBytes, plural } from '../format.js';
import type { DashboardUser } from '../types.js';

/** The library at a glance, beside the title: files, storage against the plan, uploads left today. */
export function LibraryStats({ user, files }: { user: DashboardUser; files: number }) {
  return (
    <ul class="library-stats" aria-label="Your library">
      <li>
        <Icon icon={Files} />
        {plural(files, 'file')}
      </li>
      <li>
        <Icon icon={HardDrive} />
        {formatBytes(user.usage.monthlyStorageUsed)} of {formatBytes(user.limits.monthlyStorageLimit)}
      </li>
      <li>
        <Icon icon={CalendarCheck} />
        {plural(user.usage.remaining, 'upload')} left today
      </li>
    </ul>
  );
}
