import type { Handlers } from '../operations';
import { listReply, pageRequest, requireZone } from './access';

export const certificatePackHandlers: Pick<Handlers, 'listCertificatePacks'> = {
  async listCertificatePacks(context) {
    const { zone_id } = context.params;
    await requireZone(context, zone_id);
    // Without `all` (under either parameter name), only active packs are listed, as the real API does.
    const all = context.query.ssl_status === 'all' || context.query.status === 'all';
    const page = await context.store.certificatePacks.list(zone_id, {
      ...pageRequest(context.query, 'created_on'),
      status: all ? 'all' : 'active',
    });
    return listReply(page);
  },
};
