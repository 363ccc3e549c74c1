import { InvalidRequestDescriptionError, simulate } from '../../simulator';
import type { Handlers } from '../operations';
import { ApiError, Codes } from '../http/errors';
import { requireZone } from './access';

export const simulatorHandlers: Pick<Handlers, 'simulateZoneRequest'> = {
  async simulateZoneRequest(context) {
    const zone = await requireZone(context, context.params.zone_id);
    try {
      return { result: await simulate(context.store, zone.id, context.body) };
    } catch (error) {
      // The document checks the shape; what only the simulator knows (URL form, override types...) is one error per problem.
      if (error instanceof InvalidRequestDescriptionError) {
        throw new ApiError(
          400,
          error.issues.map((issue) => ({ code: Codes.invalidRequest, message: `body${issue.path === '' ? '' : `.${issue.path}`}: ${issue.message}` })),
        );
      }
      throw error;
    }
  },
};
