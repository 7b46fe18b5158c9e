import { Crown } from 'lucide';
import { Icon } from '../../../views/icon.js';
import { api } from '../api.js';
import { session } from '../session.js';
import type { DashboardData, Settings, UrlFormatSettings } from '../types.js';
import { Status, useLoad } from '../ui.js';
import { AccessTokens } from './access-tokens.js';
import { ApiKey } from './api-key.js';
import { Assistants } from './assistants.js';
import { CustomDomain } from './custom-domain.js';
import { UploadPrivacy } from './upload-privacy.js';
import { UrlStyle } from './url-style.js';
import { UsageMeters } from './usage-meters.js';
import { Webhooks } from './webhooks.js';

/** What Pro adds, said once for a Free account (whose settings never ask the API for Pro's parts). */
function ProNotice() {
  return (
    <section class="card pro-notice" aria-labelledby="pro-title">
      <h2 id="pro-title">
        <Icon icon={Crown} />
        More with Pro
      </h2>
      <ul>
        <li>
          <strong>Custom domain:</strong> serve your files on a domain of your own, such as files.example.com.
        </li>
        <li>
          <strong>Folder keys:</strong> a key per folder that uploads straight into it and opens nothing else.
        </li>
        <li>
          <strong>Larger files, more uploads a day and more storage.</strong>
        </li>
      </ul>
    </section>
  );
}

/** The account's settings: usage against the plan, upload privacy, link style, custom domain (Pro), API key, access tokens, assistants, webhooks. */
export function SettingsPage() {
  // The dashboard's user carries today's count and what is left; one file is the least it lists.
  const usage = useLoad((signal) => api<{ data: DashboardData }>('/user/dashboard?limit=1', { signal }).then((r) => r.data.user));
  const urlStyle = useLoad((signal) => api<{ data: UrlFormatSettings }>('/user/subdomain', { signal }).then((r) => r.data));
  const privacy = useLoad((signal) => api<{ data: Settings }>('/user/settings', { signal }).then((r) => r.data));
  return (
    <>
      <h1>Settings</h1>
      {usage.error && <Status error={usage.error} />}
      {usage.data && <UsageMeters user={usage.data} />}
      {privacy.error && <Status error={privacy.error} />}
      {privacy.data && <UploadPrivacy settings={privacy.data} onSaved={(settings) => privacy.setData(settings)} />}
      {urlStyle.error && <Status error={urlStyle.error} />}
      {urlStyle.data && (
        <UrlStyle settings={urlStyle.data} onSaved={(format) => urlStyle.setData((current) => current && { ...current, format })} />
      )}
      {session().plan === 'pro' ? <CustomDomain onChanged={urlStyle.reload} /> : <ProNotice />}
      <ApiKey />
      <AccessTokens />
      <Assistants />
      <Webhooks />
    </>
  );
}
