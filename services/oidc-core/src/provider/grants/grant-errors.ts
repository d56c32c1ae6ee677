/** Small helpers the grants of this folder share. */
import { errors } from 'oidc-provider';

/** invalid_grant with the reason as its error_description (node-oidc-provider's would say only "grant request is invalid"). */
export const invalidGrant = (description: string) =>
  Object.assign(new errors.InvalidGrant(description), { error_description: description });

/** A JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
