import { InvalidInputError } from '../errors';
import { resolvePage, toPage } from '../query/paging';
import type { Page, PageRequest, TextFilter, Zone, ZoneListFilter } from '../types';

const ZONE_ORDERS = ['name', 'created_on', 'status', 'id', 'account.id', 'account.name', 'plan.id'] as const;

/**
 * One page of the zone list, filtered, ordered and cut in memory. A deployment holds tens of
 * zones, and the text operators (case-sensitive or not) then behave the same on every engine.
 */
export function zonePage(zones: readonly Zone[], filter: ZoneListFilter | undefined, request: PageRequest<string> | undefined): Page<Zone> {
  const window = resolvePage(request, ZONE_ORDERS);
  const selected = zones.filter((zone) => reachable(zone, filter) && matches(zone, filter));
  const key = sortKey(window.order);
  const sign = window.direction === 'desc' ? -1 : 1;
  selected.sort((a, b) => sign * (compare(key(a), key(b)) || compare(a.id, b.id)));
  return toPage(selected.slice(window.offset, window.offset + window.per_page), selected.length, window);
}

function reachable(zone: Zone, filter: ZoneListFilter | undefined): boolean {
  const within = filter?.within;
  return within === undefined || within.zone_ids.includes(zone.id) || within.account_ids.includes(zone.account.id);
}

function matches(zone: Zone, filter: ZoneListFilter | undefined): boolean {
  const checks: boolean[] = [];
  if (filter?.name !== undefined) checks.push(textMatches(zone.name, filter.name));
  if (filter?.status !== undefined) checks.push(zone.status === filter.status);
  if (filter?.account_id !== undefined) checks.push(zone.account.id === filter.account_id);
  if (filter?.account_name !== undefined) checks.push(textMatches(zone.account.name, filter.account_name));
  if (checks.length === 0) return true;
  return filter?.match === 'any' ? checks.some(Boolean) : checks.every(Boolean);
}

export function textMatches(text: string, { operator, value }: TextFilter): boolean {
  const caseSensitive = operator.endsWith('_case_sensitive');
  const subject = caseSensitive ? text : text.toLowerCase();
  const wanted = caseSensitive ? value : value.toLowerCase();
  switch (operator) {
    case 'equal':
      return subject === wanted;
    case 'not_equal':
      return subject !== wanted;
    case 'starts_with':
    case 'starts_with_case_sensitive':
      return subject.startsWith(wanted);
    case 'ends_with':
    case 'ends_with_case_sensitive':
      return subject.endsWith(wanted);
    case 'contains':
    case 'contains_case_sensitive':
      return subject.includes(wanted);
    default:
      throw new InvalidInputError(`unknown text operator ${JSON.stringify(operator)}`);
  }
}

function sortKey(order: (typeof ZONE_ORDERS)[number]): (zone: Zone) => string {
  switch (order) {
    case 'account.id':
      return (zone) => zone.account.id;
    case 'account.name':
      return (zone) => zone.account.name;
    case 'plan.id':
      return (zone) => zone.plan.id;
    default:
      return (zone) => zone[order];
  }
}

/** Code-point order, as the database's text order is on both engines. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
