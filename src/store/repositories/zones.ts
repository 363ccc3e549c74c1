import type { Selectable, SelectQueryBuilder } from 'kysely';
import { fromFlag, fromJson, fromJsonOrNull } from '../codecs';
import { zonePage } from './zone-filter';
import type { Database, ZonesTable } from '../schema/tables';
import type { ReadContext } from '../transaction/context';
import type { Executor } from '../transaction/executor';
import type { ZoneRepository } from '../store';
import type { SeededRows } from '../seeded-rows';
import { seededById } from './seeded-by-id';
import type { Zone } from '../types';

type ZoneRow = Selectable<ZonesTable> & { account_name: string };

export function zoneRepository(executor: Executor, seeded: SeededRows<Zone>): ZoneRepository {
  return {
    get: (id) => seededById(executor, seeded, id, readZone),

    list: (filter, request) =>
      executor.readStatement(async ({ db }) => {
        // With `match=any` the account filter is one alternative among others, not a narrowing.
        const narrowByAccount = filter?.account_id !== undefined && filter.match !== 'any';
        let zones = selectZones(db);
        if (narrowByAccount) {
          zones = zones.where('zones.account_id', '=', filter.account_id!);
        }
        return zonePage((await zones.execute()).map(toZone), filter, request);
      }),
  };
}

function selectZones(db: ReadContext['db']) {
  return withAccountName(db.selectFrom('zones').innerJoin('accounts', 'accounts.id', 'zones.account_id'));
}

function withAccountName(query: SelectQueryBuilder<Database, 'zones' | 'accounts', object>) {
  return query.selectAll('zones').select('accounts.name as account_name');
}

function toZone(row: ZoneRow): Zone {
  return {
    id: row.id,
    name: row.name,
    status: row.status as Zone['status'],
    paused: fromFlag(row.paused),
    type: row.type as Zone['type'],
    development_mode: row.development_mode,
    name_servers: fromJson(row.name_servers),
    original_name_servers: fromJsonOrNull(row.original_name_servers),
    original_registrar: row.original_registrar,
    original_dnshost: row.original_dnshost,
    created_on: row.created_on,
    modified_on: row.modified_on,
    activated_on: row.activated_on,
    meta: fromJson(row.meta),
    owner: fromJson(row.owner),
    account: { id: row.account_id, name: row.account_name },
    permissions: fromJson(row.permissions),
    plan: fromJson(row.plan),
  };
}

async function readZone(db: ReadContext['db'], id: string): Promise<Zone | undefined> {
  const row = await selectZones(db).where('zones.id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : toZone(row);
}
