import { api } from '../api.js';
import type { DashboardData, Settings, UrlFormatSettings } from '../types.js';
import { Status, useLoad } from '../ui.js';
import { ApiKey } from './api-key.js';
import { Assistants } from './assistants.js';
import { CustomDomain } from './custom-domain.js';
import { UploadPrivacy } from './upload-privacy.js';
import { UrlStyle } from './url-style.js';
import { UsageMeters } from './usage-meters.js';

/** The account's settings: usage against the plan, upload privacy, link style, custom domain, API key, assistants. */
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
      <CustomDomain onChanged={urlStyle.reload} />
      <ApiKey />
      <Assistants />
    </>
  );
}
