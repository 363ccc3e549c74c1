import type { Selectable } from 'kysely';
import { fromJson } from '../codecs';
import { fetchPage } from '../paged-query';
import { resolvePage } from '../paging';
import type { AccountsTable } from '../schema/tables';
import type { Executor, ReadContext } from '../session';
import type { AccountRepository } from '../store';
import type { Account } from '../types';

const ACCOUNT_ORDERS = ['name', 'created_on', 'id'] as const;

export function accountRepository(executor: Executor): AccountRepository {
  return {
    get: async (id) => {
      // Known from memory at once (every lookup after the first), or read.
      const known = executor.readNow(seededAccount, id);
      if (known !== undefined) return known;
      return executor.readStatement(async ({ db, seeded }) => {
        const found = seeded.accounts.get(id);
        if (found) return found;
        const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
        return row === undefined ? null : seeded.accounts.remember(toAccount(row));
      });
    },

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

function seededAccount(ctx: ReadContext, id: string): Account | undefined {
  return ctx.seeded.accounts.get(id);
}
