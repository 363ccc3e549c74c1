import type { Selectable } from 'kysely';
import { fromFlag, fromJson } from '../codecs';
import { InvalidInputError, InvitationAlreadyAnsweredError, NotFoundError } from '../errors';
import type { InvitationsTable } from '../schema/tables';
import type { ReadContext } from '../transaction/context';
import type { Executor } from '../transaction/executor';
import type { InvitationRepository } from '../store';
import { INVITATION_ANSWERS, type Invitation, type InvitationStatus } from '../types';

type InvitationRow = Selectable<InvitationsTable> & { organization_name: string };

export function invitationRepository(executor: Executor): InvitationRepository {
  return {
    get: (id) => executor.readStatement(({ db }) => findInvitation(db, id)),

    listForEmail: (email) =>
      executor.read(async ({ db }) => {
        const rows = await selectInvitations(db)
          .where('invitations.invited_member_email', '=', email.toLowerCase())
          .orderBy('invitations.invited_on')
          .orderBy('invitations.id')
          .execute();
        return rows.map(toInvitation);
      }),

    respond: (id, status) =>
      executor.write(async (ctx) => {
        if (!INVITATION_ANSWERS.includes(status)) {
          throw new InvalidInputError(`an invitation is answered with accepted or rejected, not ${JSON.stringify(status)}`);
        }
        // Compare-and-set on `pending`: of two racing answers exactly one wins.
        const result = await ctx.db
          .updateTable('invitations')
          .set({ status })
          .where('id', '=', id)
          .where('status', '=', 'pending')
          .executeTakeFirst();
        const invitation = await findInvitation(ctx.db, id);
        if (invitation === null) {
          throw new NotFoundError('invitation', id);
        }
        if (result.numUpdatedRows !== 1n) {
          throw new InvitationAlreadyAnsweredError(id, invitation.status);
        }
        return invitation;
      }),
  };
}

function selectInvitations(db: ReadContext['db']) {
  return db
    .selectFrom('invitations')
    .innerJoin('accounts', 'accounts.id', 'invitations.organization_id')
    .selectAll('invitations')
    .select('accounts.name as organization_name');
}

async function findInvitation(db: ReadContext['db'], id: string): Promise<Invitation | null> {
  const row = await selectInvitations(db).where('invitations.id', '=', id).executeTakeFirst();
  return row === undefined ? null : toInvitation(row);
}

function toInvitation(row: InvitationRow): Invitation {
  return {
    id: row.id,
    invited_member_id: row.invited_member_id,
    invited_member_email: row.invited_member_email,
    organization_id: row.organization_id,
    organization_name: row.organization_name,
    organization_is_enforcing_twofactor: fromFlag(row.organization_is_enforcing_twofactor),
    roles: fromJson(row.roles),
    invited_by: row.invited_by,
    invited_on: row.invited_on,
    expires_on: row.expires_on,
    status: row.status as InvitationStatus,
  };
}
