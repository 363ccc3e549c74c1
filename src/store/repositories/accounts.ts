import type { Selectable } from 'kysely';
import { fromJson } from '../codecs';
import { fetchPage } from '../query/paged-query';
import { resolvePage } from '../query/paging';
import type { AccountsTable } from '../schema/tables';
import type { ReadContext } from '../transaction/context';
import type { Executor } from '../transaction/executor';
import type { AccountRepository } from '../store';
import type { SeededRows } from '../seeded-rows';
import { seededById } from './seeded-by-id';
import type { Account } from '../types';

const ACCOUNT_ORDERS = ['name', 'created_on', 'id'] as const;

export function accountRepository(executor: Executor, seeded: SeededRows<Account>): AccountRepository {
  return {
    get: (id) => seededById(executor, seeded, id, readAccount),

    list: (request) =>
      executor.read(async ({ db }) => {
        const window = resolvePage(request, ACCOUNT_ORDERS);
        return fetchPage(db.selectFrom('accounts'), (q) => q.selectAll(), window, 'accounts', (rows) => rows.map(toAccount));
      }),
  };
}

function toAccount(row: Selectable<AccountsTable>): Account {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    settings: fromJson(row.settings),
    created_on: row.created_on,
  };
}

async function readAccount(db: ReadContext['db'], id: string): Promise<Account | undefined> {
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : toAccount(row);
}
