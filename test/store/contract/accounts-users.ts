import { describe, expect, it } from 'vitest';
import { InvalidInputError, InvitationAlreadyAnsweredError, NotFoundError, type InvitationAnswer } from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import {
  DEFAULT_USER_EMAIL,
  DEFAULT_USER_ID,
  fixtureId,
  MAIN_ACCOUNT_ID,
  PENDING_INVITATION_ID,
  SECOND_ACCOUNT_ID,
} from './fixtures';

export function accountsAndUsersContract(harness: () => StoreHarness): void {
  describe('accounts', () => {
    it('gets an account with its settings', async () => {
      const store = await harness().fresh();
      expect(await store.accounts.get(MAIN_ACCOUNT_ID)).toEqual({
        id: MAIN_ACCOUNT_ID,
        name: 'Example Corp',
        type: 'enterprise',
        settings: { enforce_twofactor: false, use_account_custom_ns_by_default: false, abuse_contact_email: null },
        created_on: '2018-06-11T09:15:27.412563Z',
      });
      expect(await store.accounts.get('0'.repeat(32))).toBeNull();
    });

    it('lists accounts in the asked order', async () => {
      const store = await harness().fresh();
      const byName = await store.accounts.list({ order: 'name', direction: 'DESC' });
      expect(byName.items.map((account) => account.name)).toEqual(['Sandbox Labs', 'Example Corp']);
      const second = await store.accounts.list({ per_page: 1, page: 2, order: 'created_on' });
      expect(second.items.map((account) => account.id)).toEqual([SECOND_ACCOUNT_ID]);
      expect(second.result_info).toEqual({ page: 2, per_page: 1, count: 1, total_count: 2, total_pages: 2 });
    });
  });

  describe('users', () => {
    it('finds a user by id and by email in any case', async () => {
      const store = await harness().fresh();
      const user = await store.users.get(DEFAULT_USER_ID);
      expect(user).toMatchObject({ email: DEFAULT_USER_EMAIL, first_name: 'John', two_factor_authentication_enabled: true });
      expect(await store.users.getByEmail('User@Example.COM')).toEqual(user);
      expect(await store.users.getByEmail('nobody@example.com')).toBeNull();
      expect(await store.users.get(fixtureId('nobody'))).toBeNull();
    });
  });

  describe('invitations', () => {
    it('gets an invitation with its organization name and roles', async () => {
      const store = await harness().fresh();
      const invitation = await store.invitations.get(PENDING_INVITATION_ID);
      expect(invitation).toMatchObject({
        id: PENDING_INVITATION_ID,
        invited_member_email: DEFAULT_USER_EMAIL,
        organization_id: SECOND_ACCOUNT_ID,
        organization_name: 'Sandbox Labs',
        organization_is_enforcing_twofactor: true,
        status: 'pending',
      });
      expect(invitation?.roles.map((role) => role.name)).toEqual(['Administrator']);
      expect(invitation?.roles[0]?.permissions.waf).toEqual({ read: true, write: true });
    });

    it('lists the invitations of an email, oldest first', async () => {
      const store = await harness().fresh();
      const invitations = await store.invitations.listForEmail('USER@example.com');
      expect(invitations.map((invitation) => [invitation.id, invitation.status])).toEqual([
        [fixtureId('invitation:user-accepted'), 'accepted'],
        [PENDING_INVITATION_ID, 'pending'],
      ]);
      expect(await store.invitations.listForEmail('stranger@example.com')).toEqual([]);
    });

    it('answers a pending invitation once', async () => {
      const store = await harness().fresh();
      const accepted = await store.invitations.respond(PENDING_INVITATION_ID, 'accepted');
      expect(accepted.status).toBe('accepted');
      expect((await store.invitations.get(PENDING_INVITATION_ID))?.status).toBe('accepted');
      const again = await store.invitations.respond(PENDING_INVITATION_ID, 'rejected').catch((e: unknown) => e);
      expect(again).toBeInstanceOf(InvitationAlreadyAnsweredError);
      expect((again as Error).message).toBe(`invitation ${PENDING_INVITATION_ID} is already accepted`);
      expect((await store.invitations.get(PENDING_INVITATION_ID))?.status).toBe('accepted');
    });

    it('refuses answers to accepted or unknown invitations and answers other than accept or reject', async () => {
      const store = await harness().fresh();
      await expect(store.invitations.respond(fixtureId('invitation:user-accepted'), 'rejected')).rejects.toBeInstanceOf(
        InvitationAlreadyAnsweredError,
      );
      await expect(store.invitations.respond(fixtureId('missing'), 'accepted')).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.invitations.respond(PENDING_INVITATION_ID, 'pending' as InvitationAnswer)).rejects.toBeInstanceOf(
        InvalidInputError,
      );
      expect((await store.invitations.get(PENDING_INVITATION_ID))?.status).toBe('pending');
    });
  });
}
