import { z } from 'zod';
import { isoDate } from './common.contract.js';

const sslValidationRecord = z.object({ txt_name: z.string(), txt_value: z.string() });
const dnsRecordCheckSchema = z.object({ type: z.enum(['CNAME', 'TXT']), name: z.string(), expected: z.string(), seen: z.array(z.string()), ok: z.boolean() });

export const customDomainSchema = z
  .object({
    customDomain: z.string(),
    customDomainStatus: z.enum(['pending', 'active', 'failed']),
    providerStatus: z.string(),
    sslStatus: z.string(),
    txtRecordName: z.string(),
    txtRecordValue: z.string(),
    sslValidationRecords: z.array(sslValidationRecord),
    cnameTarget: z.string(),
    dnsChecks: z.record(z.string(), z.boolean()).meta({ example: { cname: true, txt_val: true, ssl_val_0: false } }),
    records: z.array(dnsRecordCheckSchema),
    problems: z.array(z.string()),
    lastCheckedAt: isoDate.nullable(),
    nextCheckAt: isoDate.nullable(),
    certificateExpiresAt: isoDate.nullable(),
  })
  .meta({ id: 'CustomDomain' });
export type CustomDomain = z.output<typeof customDomainSchema>;

const noCustomDomainSchema = z.object({ customDomain: z.null(), customDomainStatus: z.literal('none'), cnameTarget: z.string() });
export const customDomainStateSchema = z
  .union([noCustomDomainSchema, customDomainSchema])
  .meta({ id: 'CustomDomainState', description: 'No domain yet, or its configuration with the last DNS checks' });
export type CustomDomainState = z.output<typeof customDomainStateSchema>;
