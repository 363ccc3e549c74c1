import type { Selectable } from 'kysely';
import { fromFlag } from '../codecs';
import type { UsersTable } from '../schema/tables';
import type { Executor } from '../transaction/executor';
import type { UserRepository } from '../store';
import type { User } from '../types';

export function userRepository(executor: Executor): UserRepository {
  return {
    get: (id) =>
      executor.readStatement(async ({ db }) => {
        const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
        return row === undefined ? null : toUser(row);
      }),

    getByEmail: (email) =>
      executor.readStatement(async ({ db }) => {
        // Emails are stored lower-cased (the seed loader does it), so equality is enough.
        const row = await db
          .selectFrom('users')
          .selectAll()
          .where('email', '=', email.toLowerCase())
          .executeTakeFirst();
        return row === undefined ? null : toUser(row);
      }),
  };
}

function toUser(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    username: row.username,
    telephone: row.telephone,
    country: row.country,
    zipcode: row.zipcode,
    two_factor_authentication_enabled: fromFlag(row.two_factor_authentication_enabled),
    suspended: fromFlag(row.suspended),
    created_on: row.created_on,
    modified_on: row.modified_on,
  };
}
