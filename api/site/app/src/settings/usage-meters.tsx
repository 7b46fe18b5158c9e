import { formatBytes } from '../format.js';
import type { DashboardUser } from '../types.js';

/** Today's uploads and the storage used, against the plan's limits: bars with the numbers in words. */
export function UsageMeters({ user }: { user: DashboardUser }) {
  const today = user.usage.todayCount;
  const daily = user.limits.dailyLimit;
  const remaining = user.usage.remaining;
  const used = user.usage.monthlyStorageUsed;
  const storage = user.limits.monthlyStorageLimit;
  return (
    <section class="card" aria-labelledby="usage-title">
      <h2 id="usage-title">Usage</h2>
      <p class="muted">
        Plan: <strong class="plan-name">{user.plan}</strong>
      </p>
      <div class="usage">
        <label for="usage-uploads">Uploads today</label>
        <meter id="usage-uploads" min={0} max={daily} value={Math.min(today, daily)} high={daily * 0.9} optimum={0} />
        <p class="usage-text" data-testid="uploads-today">
          {today} of {daily} uploads today · {remaining} left
        </p>
      </div>
      <div class="usage">
        <label for="usage-storage">Storage</label>
        <meter id="usage-storage" min={0} max={storage} value={Math.min(used, storage)} high={storage * 0.9} optimum={0} />
        <p class="usage-text" data-testid="storage-used">
          {formatBytes(used)} of {formatBytes(storage)} used · {percentOf(used, storage)}
        </p>
      </div>
    </section>
  );
}

function percentOf(part: number, whole: number): string {
  if (whole <= 0) return '0%';
  const percent = (part / whole) * 100;
  return percent > 0 && percent < 1 ? 'under 1%' : `${Math.round(percent)}%`;
}
