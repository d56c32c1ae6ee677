/**
 * The scheduled jobs the jobs API knows. Closed set (CONVENTIONS 8): a new job type fails the build until every
 * switch handles it.
 */
import { z } from 'zod';
import type { JobType } from '@idp/db';

export interface JobDefinition {
  name: string;
  type: JobType;
  description: string;
  /** Schedule of a freshly installed job (the chart's CronJob default). */
  defaultSchedule: string;
  /** customOptions accepted by PATCH; the job program validates them again when it runs. */
  customOptions: z.ZodObject;
}

/**
 * customOptions of nhe-audit-retention. Same rules as services/audit-retention/src/job.ts
 * (retentionCustomOptionsSchema), which validates again at run time: management does not import that program.
 */
export const retentionCustomOptions = z
  .object({
    batchSize: z.number().int().min(1).max(100_000).optional().describe('Rows deleted per batch (default 1000)'),
  })
  .strict();

export const JOB_DEFINITIONS: readonly JobDefinition[] = [
  {
    name: 'nhe-audit-retention',
    type: 'NHE_AUDIT_RETENTION',
    description:
      "Deletes NHE token audit rows older than each tenant's auditRetentionDays (at most 1,000,000 per tenant per run)",
    defaultSchedule: '0 3 * * *',
    customOptions: retentionCustomOptions,
  },
];

export function definitionOf(name: string): JobDefinition | undefined {
  return JOB_DEFINITIONS.find((d) => d.name === name);
}

export function assertJobType(type: JobType): JobType {
  switch (type) {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- one type today; a new one is handled here
    case 'NHE_AUDIT_RETENTION':
      return type;
    default:
      throw new Error(`unknown job type ${String(type satisfies never)}`);
  }
}
