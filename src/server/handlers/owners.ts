import type { LogpushJobRepository, Repositories, RulesetScope, Zone } from '../../store';
import type { Context, OperationId } from '../operations';
import { requireAccount, requireZone } from './access';

/*
 * The one difference between a zone operation and its account twin: whose path it is. Each twin
 * is written once, with the kind of owner as its parameter (see rulesets.ts, rules.ts,
 * ruleset-versions.ts, logpush.ts).
 */

/** The zone or account of the path, found and reachable with the request's credentials. */
export interface Owner {
  readonly id: string;
  /** Where its rulesets live. */
  readonly scope: RulesetScope;
  /** The zone's account, or the account itself: whose managed rulesets `execute` rules may reference. */
  readonly accountId: string;
  /** The zone, when the owner is one. */
  readonly zone: Zone | null;
}

export interface OwnerKind {
  /** The owner the path names: 404 when it does not exist, 403 (9109) when the credentials do not reach it. */
  of<O extends OperationId>(context: Context<O>): Promise<Owner>;
  /** The owner's log push jobs (zone and account jobs never see each other). */
  logpushJobs(repositories: Repositories): LogpushJobRepository;
}

/** Operations under `/zones/{zone_id}`. */
export const zoneOwners: OwnerKind = {
  async of(context) {
    const zone = await requireZone(context, (context.params as { zone_id: string }).zone_id);
    return { id: zone.id, scope: { zone_id: zone.id }, accountId: zone.account.id, zone };
  },
  logpushJobs: (repositories) => repositories.logpushJobs,
};

/** Operations under `/accounts/{account_id}`. */
export const accountOwners: OwnerKind = {
  async of(context) {
    const account = await requireAccount(context, (context.params as { account_id: string }).account_id);
    return { id: account.id, scope: { account_id: account.id }, accountId: account.id, zone: null };
  },
  logpushJobs: (repositories) => repositories.accountLogpushJobs,
};

/** The context of either twin of an operation: the zone one or the account one. */
export type TwinContext<Z extends OperationId, A extends OperationId> = Context<Z> | Context<A>;
