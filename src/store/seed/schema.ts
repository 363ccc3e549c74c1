import { z } from 'zod';
import { parseTimestamp } from '../clock';
import { INVITATION_STATUSES, MIGRATION_STATES } from '../types';

/*
 * The seed file: the API's own records, grouped by owner (a zone holds its WAF state,
 * certificate packs, rulesets and log push jobs). Unknown fields are refused so that a
 * typo cannot silently drop data. Derived fields (a zone's account name, an invitation's
 * organization name) are not written in the file; the store joins them.
 */

function buildSeedFileSchema() {
  const id = z.string().regex(/^[0-9a-f]{32}$/, 'expected 32 lower-case hex characters');
  const timestamp = z.string().refine(
    (text) => {
      try {
        parseTimestamp(text);
        return true;
      } catch {
        return false;
      }
    },
    'expected an ISO 8601 UTC timestamp such as 2026-11-21T10:00:00.123456Z',
  );
  const version = z.string().regex(/^[1-9][0-9]*$/, 'expected a numeric version string such as "1"');
  const lowerCaseEmail = z.email().refine((text) => text === text.toLowerCase(), 'emails are written in lower case');
  const jsonObject = z.record(z.string(), z.unknown());

  const account = z.strictObject({
    id,
    name: z.string().min(1),
    type: z.string().min(1),
    settings: jsonObject,
    created_on: timestamp,
  });

  const user = z.strictObject({
    id,
    email: lowerCaseEmail,
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    username: z.string().min(1),
    telephone: z.string().nullable(),
    country: z.string().nullable(),
    zipcode: z.string().nullable(),
    two_factor_authentication_enabled: z.boolean(),
    suspended: z.boolean(),
    created_on: timestamp,
    modified_on: timestamp,
  });

  const invitation = z.strictObject({
    id,
    invited_member_id: id.nullable(),
    invited_member_email: lowerCaseEmail,
    organization_id: id,
    organization_is_enforcing_twofactor: z.boolean(),
    roles: z.array(
      z.strictObject({
        id,
        name: z.string().min(1),
        description: z.string(),
        permissions: z.record(z.string(), z.strictObject({ read: z.boolean(), write: z.boolean() })),
      }),
    ),
    invited_by: z.string().min(1),
    invited_on: timestamp,
    expires_on: timestamp,
    status: z.enum(INVITATION_STATUSES),
  });

  const previousWaf = z.strictObject({
    migration_state: z.enum(MIGRATION_STATES),
    old_managed_rules_enabled: z.boolean(),
    new_managed_rules_enabled: z.boolean(),
    modified_on: timestamp,
    packages: z.array(
      z.strictObject({
        id,
        name: z.string().min(1),
        description: z.string(),
        detection_mode: z.enum(['anomaly', 'traditional']),
        sensitivity: z.enum(['high', 'medium', 'low', 'off']).nullable(),
        action_mode: z.enum(['simulate', 'block', 'challenge']).nullable(),
      }),
    ),
    overrides: z.array(
      z.strictObject({
        package_id: id,
        level: z.enum(['rule', 'group']),
        target_id: z.string().min(1),
        description: z.string(),
        mode: z.string().min(1),
      }),
    ),
    uri_overrides: z.array(
      z.strictObject({
        id,
        urls: z.array(z.string().min(1)).min(1),
        paused: z.boolean(),
        description: z.string(),
        priority: z.int(),
        rules: z.record(z.string(), z.string()),
        groups: z.record(z.string(), z.string()),
        rewrite_action: z.record(z.string(), z.string()).nullable(),
      }),
    ),
    firewall_rules: z.array(
      z.strictObject({
        id,
        expression: z.string().min(1),
        action: z.enum(['block', 'challenge', 'js_challenge', 'managed_challenge', 'allow', 'log', 'bypass']),
        products: z.array(z.string().min(1)),
        paused: z.boolean(),
        description: z.string(),
        priority: z.int().nullable(),
      }),
    ),
    page_rules: z.array(
      z.strictObject({
        id,
        targets: z
          .array(
            z.strictObject({
              target: z.literal('url'),
              constraint: z.strictObject({ operator: z.string().min(1), value: z.string().min(1) }),
            }),
          )
          .min(1),
        actions: z.array(z.strictObject({ id: z.string().min(1), value: z.unknown().optional() })).min(1),
        priority: z.int(),
        status: z.enum(['active', 'disabled']),
        created_on: timestamp,
        modified_on: timestamp,
      }),
    ),
  });

  const certificate = z.strictObject({
    id,
    hosts: z.array(z.string().min(1)).min(1),
    issuer: z.string().min(1),
    signature: z.string().min(1),
    status: z.string().min(1),
    bundle_method: z.string().min(1),
    zone_id: id,
    uploaded_on: timestamp,
    modified_on: timestamp,
    expires_on: timestamp,
    priority: z.int().nullable(),
  });

  const certificatePack = z.strictObject({
    id,
    type: z.string().min(1),
    hosts: z.array(z.string().min(1)).min(1),
    primary_certificate: id.nullable(),
    status: z.string().min(1),
    certificates: z.array(certificate),
    created_on: timestamp,
    validity_days: z.int().positive(),
    validation_method: z.string().min(1),
    certificate_authority: z.string().min(1),
  });

  const rule = z.strictObject({
    id,
    version,
    action: z.string().min(1),
    action_parameters: jsonObject.optional(),
    expression: z.string().min(1),
    description: z.string(),
    ref: z.string().min(1),
    enabled: z.boolean(),
    categories: z.array(z.string().min(1)).optional(),
    score: z.int().nonnegative().optional(),
    score_threshold: z.int().nonnegative().optional(),
    logging: z.strictObject({ enabled: z.boolean() }).optional(),
    last_updated: timestamp,
  });

  const rulesetVersion = z.strictObject({
    version,
    last_updated: timestamp,
    rules: z.array(rule),
  });

  const ruleset = z.strictObject({
    id,
    name: z.string().min(1),
    description: z.string(),
    kind: z.string().min(1),
    phase: z.string().min(1),
    source: z.string().min(1).optional(),
    version,
    last_updated: timestamp,
    rules: z.array(rule),
    /** Earlier versions, kept so that execute rules can pin one. */
    previous_versions: z.array(rulesetVersion).optional(),
  });

  const logpushJob = z.strictObject({
    id: z.int().positive(),
    name: z.string().nullable(),
    dataset: z.string().min(1),
    destination_conf: z.string().min(1),
    logpull_options: z.string().nullable(),
    enabled: z.boolean(),
    frequency: z.enum(['high', 'low']),
    kind: z.string(),
    created_on: timestamp,
  });

  const zone = z.strictObject({
    id,
    account_id: id,
    name: z.string().min(1),
    status: z.enum(['active', 'pending', 'initializing', 'moved', 'deleted', 'deactivated']),
    paused: z.boolean(),
    type: z.enum(['full', 'partial', 'secondary']),
    development_mode: z.int(),
    name_servers: z.array(z.string().min(1)),
    original_name_servers: z.array(z.string().min(1)).nullable(),
    original_registrar: z.string().nullable(),
    original_dnshost: z.string().nullable(),
    created_on: timestamp,
    modified_on: timestamp,
    activated_on: timestamp.nullable(),
    meta: jsonObject,
    owner: z.strictObject({ id: id.nullable(), type: z.enum(['user', 'organization']), email: z.string().nullable() }),
    permissions: z.array(z.string().min(1)),
    plan: z.strictObject({
      id,
      name: z.string().min(1),
      price: z.number().nonnegative(),
      currency: z.string().min(1),
      frequency: z.string(),
      is_subscribed: z.boolean(),
      can_subscribe: z.boolean(),
      legacy_id: z.enum(['free', 'pro', 'business', 'enterprise']),
      legacy_discount: z.boolean(),
      externally_managed: z.boolean(),
    }),
    waf: previousWaf,
    certificate_packs: z.array(certificatePack),
    rulesets: z.array(ruleset),
    logpush_jobs: z.array(logpushJob),
  });

  return z.strictObject({
    $comment: z.string().optional(),
    accounts: z.array(account).min(1),
    users: z.array(user),
    invitations: z.array(invitation),
    zones: z.array(zone),
    /** The platform's managed rulesets, visible from every account. */
    managed_rulesets: z.array(ruleset),
  });
}

// Built on first use: a start from the bundle uses the seed checked when the bundle was built
// (prebuilt-seed.ts) and neither builds this nor loads zod (see deferredPackagesPlugin in
// scripts/bundles.mjs).
let builtSchema: ReturnType<typeof buildSeedFileSchema> | undefined;
export const seedFileSchema = () => (builtSchema ??= buildSeedFileSchema());

export type SeedFile = z.infer<ReturnType<typeof buildSeedFileSchema>>;
export type SeedZone = SeedFile['zones'][number];
export type SeedRuleset = SeedFile['managed_rulesets'][number];
export type SeedRule = SeedRuleset['rules'][number];
