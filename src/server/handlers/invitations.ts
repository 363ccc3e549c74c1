import type { Handlers } from '../operations';
import { notFound } from '../http/errors';
import { forbidden } from './access';

export const invitationHandlers: Pick<Handlers, 'updateUserInvitation'> = {
  async updateUserInvitation(context) {
    const invitation = await context.store.invitations.get(context.params.invite_id);
    if (!invitation) throw notFound(context.path);
    // Only the invited user answers an invitation.
    const email = context.principal.email?.toLowerCase();
    if (!email || invitation.invited_member_email.toLowerCase() !== email) throw forbidden();
    return { result: await context.store.invitations.respond(invitation.id, context.body.status) };
  },
};
