/**
 * What tools ask before anything else: is the token valid, who is the user, which accounts can
 * the credentials use (wrangler picks its account from `/accounts` and `/memberships`).
 */
import type { Account, Invitation, User } from '../../store';
import { canReachAccount } from '../auth/credentials';
import { ApiError } from '../http/errors';
import type { Context, Handler, OperationId } from '../operations';
import { forbidden, requireAccount } from './access';

type UserOperation = 'verifyUserToken' | 'getUser' | 'listMemberships' | 'listAccounts' | 'getAccount';

/** The user the credentials act as; 403 (9109) when they act as no known user. */
async function currentUser<O extends OperationId>(context: Context<O>): Promise<User> {
  const email = context.principal.email;
  const user = email === null ? null : await context.store.users.getByEmail(email);
  if (!user) throw forbidden();
  return user;
}

/** Every account the credentials reach. */
async function reachableAccounts<O extends OperationId>(context: Context<O>): Promise<Account[]> {
  const accounts: Account[] = [];
  for (let page = 1; ; page += 1) {
    const batch = await context.store.accounts.list({ page, per_page: 100, order: 'name', direction: 'ASC' });
    accounts.push(...batch.items);
    if (page >= batch.result_info.total_pages) break;
  }
  return accounts.filter((account) => canReachAccount(context.principal.scope, account.id));
}

/** An account as the document has it (the store keeps `type` as text and settings as JSON). */
function accountView(account: Account) {
  const settings = account.settings;
  return {
    id: account.id,
    name: account.name,
    type: account.type as 'standard' | 'enterprise',
    settings: {
      enforce_twofactor: settings.enforce_twofactor === true,
      use_account_custom_ns_by_default: settings.use_account_custom_ns_by_default === true,
      abuse_contact_email: typeof settings.abuse_contact_email === 'string' ? settings.abuse_contact_email : null,
    },
    created_on: account.created_on,
  };
}

/** One page of items in the `page`/`per_page` envelope. */
function paged<T>(items: T[], page = 1, perPage = 20) {
  const start = (page - 1) * perPage;
  const slice = items.slice(start, start + perPage);
  return {
    result: slice,
    result_info: { page, per_page: perPage, count: slice.length, total_count: items.length, total_pages: Math.ceil(items.length / perPage) },
  };
}

const byName = <T>(name: (item: T) => string, direction: 'asc' | 'desc' = 'asc') => (a: T, b: T) =>
  (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0) * (direction === 'desc' ? -1 : 1);

const MEMBERSHIP_STATUSES = new Set(['accepted', 'pending', 'rejected']);

function membershipOf(invitation: Invitation) {
  return {
    id: invitation.id,
    status: invitation.status as 'accepted' | 'pending' | 'rejected',
    account: { id: invitation.organization_id, name: invitation.organization_name },
    roles: invitation.roles.map((role) => role.name),
  };
}

export const userHandlers: { [O in UserOperation]: Handler<O> } = {
  verifyUserToken: async (context) => {
    const id = context.principal.tokenId;
    // As the real service: anything but a user API token is "Invalid API Token" (code 1000).
    if (id === undefined) throw ApiError.of(400, 1000, 'Invalid API Token');
    return { result: { id, status: 'active' as const } };
  },

  getUser: async (context) => ({ result: await currentUser(context) }),

  listMemberships: async (context) => {
    const user = await currentUser(context);
    const { status, page, per_page, direction } = context.query;
    const memberships = (await context.store.invitations.listForEmail(user.email))
      .filter((invitation) => MEMBERSHIP_STATUSES.has(invitation.status))
      .filter((invitation) => canReachAccount(context.principal.scope, invitation.organization_id))
      .map(membershipOf)
      .filter((membership) => status === undefined || membership.status === status)
      .sort(byName((membership) => membership.account.name, direction));
    return paged(memberships, page, per_page);
  },

  listAccounts: async (context) => {
    const { name, page, per_page, direction } = context.query;
    const wanted = name?.toLowerCase();
    const accounts = (await reachableAccounts(context))
      .filter((account) => wanted === undefined || account.name.toLowerCase().includes(wanted))
      .sort(byName((account) => account.name, direction));
    return paged(accounts.map(accountView), page, per_page);
  },

  getAccount: async (context) => ({ result: accountView(await requireAccount(context, context.params.account_id)) }),
};
