// Shared with the audit-writer: libs/events startup-retry.ts.
export { retryUntilDeadline, type RetryOptions } from '@idp/events';
