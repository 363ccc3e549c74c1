/** A zone's workers routes: patterns of its hostnames, each running a script of its account (or none). */
import type { WorkerRouteInput } from '../../store';
import type { Handler, Context, OperationId } from '../operations';
import { requirePatternInZone } from '../workers/route-patterns';
import { routeView } from '../workers/views';
import { notFound } from '../http/errors';
import { requireZone } from './access';

type RouteOperation = 'listWorkerRoutes' | 'createWorkerRoute' | 'getWorkerRoute' | 'updateWorkerRoute' | 'deleteWorkerRoute';

async function routeInput<O extends OperationId>(context: Context<O>, body: { pattern: string; script?: string }): Promise<{ zoneId: string; input: WorkerRouteInput }> {
  const zoneId = (context.params as { zone_id: string }).zone_id;
  const zone = await requireZone(context, zoneId);
  requirePatternInZone(body.pattern, zone.name);
  return { zoneId, input: { pattern: body.pattern, script: body.script ?? null } };
}

export const workerRouteHandlers: { [O in RouteOperation]: Handler<O> } = {
  listWorkerRoutes: async (context) => {
    await requireZone(context, context.params.zone_id);
    return { result: (await context.store.workers.listRoutes(context.params.zone_id)).map(routeView) };
  },

  createWorkerRoute: async (context) => {
    const { zoneId, input } = await routeInput(context, context.body);
    return { result: routeView(await context.store.workers.createRoute(zoneId, input)) };
  },

  getWorkerRoute: async (context) => {
    await requireZone(context, context.params.zone_id);
    const route = await context.store.workers.getRoute(context.params.zone_id, context.params.route_id);
    if (route === null) throw notFound(context.path);
    return { result: routeView(route) };
  },

  updateWorkerRoute: async (context) => {
    const { zoneId, input } = await routeInput(context, context.body);
    return { result: routeView(await context.store.workers.updateRoute(zoneId, context.params.route_id, input)) };
  },

  deleteWorkerRoute: async (context) => {
    await requireZone(context, context.params.zone_id);
    const route = await context.store.workers.getRoute(context.params.zone_id, context.params.route_id);
    if (route === null) throw notFound(context.path);
    await context.store.workers.deleteRoute(context.params.zone_id, context.params.route_id);
    return { result: routeView(route) };
  },
};
