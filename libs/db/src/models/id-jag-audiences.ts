import { Schema } from 'mongoose';

/**
 * This tenant as the enterprise identity provider of Identity Assertion Authorization Grants (ID-JAG,
 * draft-ietf-oauth-identity-assertion-authz-grant; MCP's Enterprise-Managed Authorization): the other authorization
 * servers it issues ID-JAGs for. An entry names one audience (that server's issuer) and the (audience, resource)
 * pairs that exist there (the MCP extension requires the identity provider to keep this table), which of this tenant's
 * clients may ask and under which client_id that server knows them (ID-JAG section 5: client ids are not global), and
 * the most scope an ID-JAG may carry. Nothing is issued for an audience without an enabled entry.
 */
export interface IdJagAudienceDoc {
  tenantId: number;
  /** The other authorization server's issuer identifier: the ID-JAG's `aud`. */
  audience: string;
  /** Resource identifiers (RFC 8707) at that server an ID-JAG may name; a request naming another is refused. */
  resources: string[];
  /** This tenant's clients that may ask, each with its client_id at the other server. */
  clients: Array<{ clientId: string; clientIdAtAudience: string }>;
  /**
   * The agents (NHE identifiers of this tenant) that may obtain ID-JAGs for this audience by presenting their
   * delegation token as the subject token, through one of the listed clients; absent or empty: no agent may.
   */
  agents?: string[];
  /** The scopes an ID-JAG may carry (requested scopes are cut to these). */
  scopes: string[];
  /** Lifetime of the ID-JAGs issued, seconds (at most 300 by default). */
  lifetimeSeconds: number;
  enabled: boolean;
  description?: string;
  createdAt: Date;
  updatedAt: Date;
}

export const idJagAudienceSchema = new Schema<IdJagAudienceDoc>(
  {
    tenantId: { type: Number, required: true },
    audience: { type: String, required: true },
    resources: { type: [String], default: [] },
    clients: {
      type: [
        new Schema(
          { clientId: { type: String, required: true }, clientIdAtAudience: { type: String, required: true } },
          { _id: false },
        ),
      ],
      default: [],
    },
    agents: { type: [String], default: [] },
    scopes: { type: [String], default: [] },
    lifetimeSeconds: { type: Number, default: 300 },
    enabled: { type: Boolean, default: true },
    description: { type: String },
  },
  { timestamps: true, collection: 'id_jag_audiences', versionKey: false },
);
idJagAudienceSchema.index({ tenantId: 1, audience: 1 }, { unique: true });
