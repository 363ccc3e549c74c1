import type { Selectable } from 'kysely';
import { fromJson } from '../codecs';
import { fetchPage } from '../paged-query';
import { resolvePage } from '../paging';
import type { AccountsTable } from '../schema/tables';
import type { Executor, ReadContext } from '../session';
import type { AccountRepository } from '../store';
import { seededById, type SeededRows } from '../seeded-rows';
import type { Account } from '../types';

const ACCOUNT_ORDERS = ['name', 'created_on', 'id'] as const;

export function accountRepository(executor: Executor): AccountRepository {
  return {
    get: (id) => seededById(executor, seededAccounts, id, readAccount),

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

const seededAccounts = (seeded: SeededRows) => seeded.accounts;

async function readAccount(db: ReadContext['db'], id: string): Promise<Account | undefined> {
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : toAccount(row);
}
