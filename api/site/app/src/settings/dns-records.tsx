import type { CustomDomainConfig } from '../types.js';
import { CopyButton } from '../ui.js';

interface ShownRecord {
  /** the key of the record in `dnsChecks` */
  check: string;
  type: 'CNAME' | 'TXT';
  /** how the copy buttons name it */
  label: string;
  purpose: string;
  name: string;
  value: string;
}

/** The three records to publish, in the order of the API's `dnsChecks` keys. */
function recordsOf(config: CustomDomainConfig): ShownRecord[] {
  const ssl = config.sslValidationRecords?.[0];
  return [
    { check: 'cname', type: 'CNAME', label: 'CNAME', purpose: 'Points the domain at us', name: config.customDomain ?? '', value: config.cnameTarget },
    { check: 'txt_val', type: 'TXT', label: 'ownership TXT', purpose: 'Proves the domain is yours', name: config.txtRecordName ?? '', value: config.txtRecordValue ?? '' },
    { check: 'ssl_val_0', type: 'TXT', label: 'certificate TXT', purpose: 'Lets us get its certificate', name: ssl?.txt_name ?? '', value: ssl?.txt_value ?? '' },
  ];
}

/** Each record to publish with its live state: found, or not yet (with what DNS answered instead). */
export function DnsRecords({ config }: { config: CustomDomainConfig }) {
  const checked = Boolean(config.lastCheckedAt);
  return (
    <ul class="dns-records" aria-label="DNS records to publish">
      {recordsOf(config).map((record) => {
        const ok = config.dnsChecks?.[record.check] === true;
        const seen = config.records?.find((r) => r.type === record.type && r.name === record.name)?.seen ?? [];
        const state = ok ? 'Found' : checked ? 'Not found yet' : 'Not checked yet';
        return (
          <li key={record.check} class={ok ? 'dns-record ok' : 'dns-record'} data-check={record.check}>
            <div class="dns-record-head">
              <strong>
                {record.type} <span class="muted">· {record.purpose}</span>
              </strong>
              <span class={ok ? 'pill pill-received' : 'pill pill-active'}>
                <span aria-hidden="true">{ok ? '✓ ' : '… '}</span>
                {state}
              </span>
            </div>
            <dl>
              <dt>Name</dt>
              <dd>
                <code>{record.name}</code> <CopyButton text={record.name} what={`${record.label} record name`} />
              </dd>
              <dt>Value</dt>
              <dd>
                <code>{record.value}</code> <CopyButton text={record.value} what={`${record.label} record value`} />
              </dd>
              {!ok && seen.length > 0 && (
                <>
                  <dt>DNS answers</dt>
                  <dd>
                    <code>{seen.join(', ')}</code>
                  </dd>
                </>
              )}
            </dl>
          </li>
        );
      })}
    </ul>
  );
}
