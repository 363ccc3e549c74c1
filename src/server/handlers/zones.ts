import { TEXT_OPERATORS, type TextFilter, type TextOperator, type ZoneListFilter } from '../../store';
import type { Scope } from '../auth/credentials';
import type { Handlers } from '../operations';
import { listReply, requireZone } from './access';

/** `contains:example` → contains "example"; a value with no known operator before a colon is matched whole. */
export function textFilter(text: string | undefined): TextFilter | undefined {
  if (text === undefined) return undefined;
  const colon = text.indexOf(':');
  const operator = colon < 0 ? '' : text.slice(0, colon);
  return (TEXT_OPERATORS as readonly string[]).includes(operator)
    ? { operator: operator as TextOperator, value: text.slice(colon + 1) }
    : { operator: 'equal', value: text };
}

/** The zones a credential reaches: all, or those it names and those of the accounts it names. */
function reachable(scope: Scope): ZoneListFilter['within'] {
  if (scope.zones === null && scope.accounts === null) return undefined;
  return { zone_ids: [...(scope.zones ?? [])], account_ids: [...(scope.accounts ?? [])] };
}

export const zoneHandlers: Pick<Handlers, 'listZones' | 'getZone'> = {
  async listZones(context) {
    const query = context.query;
    const filter: ZoneListFilter = {
      ...(query['account.id'] === undefined ? {} : { account_id: query['account.id'] }),
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.match === undefined ? {} : { match: query.match }),
    };
    const name = textFilter(query.name);
    const accountName = textFilter(query['account.name']);
    const within = reachable(context.principal.scope);
    const page = await context.store.zones.list(
      { ...filter, ...(name ? { name } : {}), ...(accountName ? { account_name: accountName } : {}), ...(within ? { within } : {}) },
      { page: query.page ?? 1, per_page: query.per_page ?? 20, order: query.order ?? 'name', direction: query.direction ?? 'asc' },
    );
    return listReply(page);
  },

  async getZone(context) {
    return { result: await requireZone(context, context.params.zone_id) };
  },
};
