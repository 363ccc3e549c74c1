/**
 * Zone routes (pattern -> script) and the account's workers.dev subdomain. Which patterns a
 * zone may hold is the caller's rule (the server checks them against the zone's name); here a
 * zone holds each pattern once, and a route names a script of the zone's own account.
 */
import { toJson } from '../codecs';
import { InvalidInputError, NotFoundError, WorkerRouteExistsError, WorkersSubdomainTakenError } from '../errors';
import { newId } from '../ids';
import type { WorkersRepository } from '../store';
import type { WriteContext } from '../transaction/context';
import type { Executor } from '../transaction/executor';
import { markChanged } from './changes';
import { workerRoutesLock, workerScriptLock, workersSubdomainLock } from './locks';
import { scriptRow, type Db } from './rows';
import type { WorkerRoute } from '../worker-types';

export type RouteOperations = Pick<
  WorkersRepository,
  | 'listRoutes'
  | 'getRoute'
  | 'createRoute'
  | 'updateRoute'
  | 'deleteRoute'
  | 'listScriptRoutes'
  | 'replaceScriptRoutes'
  | 'getSubdomain'
  | 'subdomainHolder'
  | 'setSubdomain'
  | 'deleteSubdomain'
>;

const toRoute = (row: { id: string; zone_id: string; pattern: string; script: string | null }): WorkerRoute => ({
  id: row.id,
  zone_id: row.zone_id,
  pattern: row.pattern,
  script: row.script,
});

export function routeOperations(executor: Executor): RouteOperations {
  const ofZone = <T>(zoneId: string, work: (ctx: WriteContext, accountId: string) => Promise<T>) =>
    executor.write(async (ctx) => {
      await ctx.lock(workerRoutesLock(zoneId));
      const zone = await ctx.db.selectFrom('zones').select('account_id').where('id', '=', zoneId).executeTakeFirst();
      if (zone === undefined) throw new NotFoundError('zone', zoneId);
      const result = await work(ctx, zone.account_id);
      await markChanged(ctx);
      return result;
    });

  return {
    listRoutes: (zoneId) =>
      executor.readStatement(async ({ db }) =>
        (await db.selectFrom('worker_routes').selectAll().where('zone_id', '=', zoneId).orderBy('pattern').orderBy('id').execute()).map(toRoute),
      ),

    getRoute: (zoneId, id) =>
      executor.readStatement(async ({ db }) => {
        const row = await db.selectFrom('worker_routes').selectAll().where('zone_id', '=', zoneId).where('id', '=', id).executeTakeFirst();
        return row === undefined ? null : toRoute(row);
      }),

    createRoute: (zoneId, input) =>
      ofZone(zoneId, async (ctx, accountId) => {
        await requireScript(ctx.db, accountId, input.script);
        await refuseTaken(ctx.db, zoneId, input.pattern, null);
        const row = { id: newId(), zone_id: zoneId, pattern: input.pattern, script: input.script, created_on: ctx.now };
        await ctx.db.insertInto('worker_routes').values(row).execute();
        return toRoute(row);
      }),

    updateRoute: (zoneId, id, input) =>
      ofZone(zoneId, async (ctx, accountId) => {
        const found = await ctx.db.selectFrom('worker_routes').select('id').where('zone_id', '=', zoneId).where('id', '=', id).executeTakeFirst();
        if (found === undefined) throw new NotFoundError('worker_route', id);
        await requireScript(ctx.db, accountId, input.script);
        await refuseTaken(ctx.db, zoneId, input.pattern, id);
        await ctx.db.updateTable('worker_routes').set({ pattern: input.pattern, script: input.script }).where('id', '=', id).execute();
        return { id, zone_id: zoneId, pattern: input.pattern, script: input.script };
      }),

    deleteRoute: (zoneId, id) =>
      ofZone(zoneId, async (ctx) => {
        const deleted = await ctx.db.deleteFrom('worker_routes').where('zone_id', '=', zoneId).where('id', '=', id).executeTakeFirst();
        if (deleted.numDeletedRows === 0n) throw new NotFoundError('worker_route', id);
      }),

    listScriptRoutes: (accountId, name) =>
      executor.read(async ({ db }) => {
        if ((await scriptRow(db, accountId, name)) === undefined) return null;
        return scriptRoutes(db, accountId, name);
      }),

    replaceScriptRoutes: (accountId, name, routes) =>
      executor.write(async (ctx) => {
        await ctx.lock(workerScriptLock(accountId, name));
        const zoneIds = [...new Set(routes.map((route) => route.zone_id))].sort();
        for (const zoneId of zoneIds) await ctx.lock(workerRoutesLock(zoneId));
        if ((await scriptRow(ctx.db, accountId, name)) === undefined) throw new NotFoundError('worker_script', name);
        const accountZones = ctx.db.selectFrom('zones').select('id').where('account_id', '=', accountId);
        await ctx.db.deleteFrom('worker_routes').where('script', '=', name).where('zone_id', 'in', accountZones).execute();
        const seen = new Set<string>();
        for (const route of routes) {
          const key = `${route.zone_id} ${route.pattern}`;
          if (seen.has(key)) throw new InvalidInputError(`route ${route.pattern} is listed twice`);
          seen.add(key);
          await refuseTaken(ctx.db, route.zone_id, route.pattern, null);
          await ctx.db.insertInto('worker_routes').values({ id: newId(), zone_id: route.zone_id, pattern: route.pattern, script: name, created_on: ctx.now }).execute();
        }
        await markChanged(ctx);
        return scriptRoutes(ctx.db, accountId, name);
      }),

    getSubdomain: (accountId) =>
      executor.readStatement(async ({ db }) => {
        const row = await db.selectFrom('worker_subdomains').select('subdomain').where('account_id', '=', accountId).executeTakeFirst();
        return row?.subdomain ?? null;
      }),

    subdomainHolder: (subdomain) =>
      executor.readStatement(async ({ db }) => {
        const row = await db.selectFrom('worker_subdomains').select('account_id').where('subdomain', '=', subdomain).executeTakeFirst();
        return row?.account_id ?? null;
      }),

    setSubdomain: (accountId, subdomain) =>
      executor.write(async (ctx) => {
        await ctx.lock(workersSubdomainLock(accountId));
        const taken = await ctx.db.selectFrom('worker_subdomains').select('account_id').where('subdomain', '=', subdomain).executeTakeFirst();
        if (taken !== undefined && taken.account_id !== accountId) throw new WorkersSubdomainTakenError(subdomain);
        const account = await ctx.db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
        if (account === undefined) throw new NotFoundError('account', accountId);
        await ctx.db
          .insertInto('worker_subdomains')
          .values({ account_id: accountId, subdomain, created_on: ctx.now })
          .onConflict((conflict) => conflict.column('account_id').doUpdateSet({ subdomain }))
          .execute();
        await markChanged(ctx);
        return subdomain;
      }),

    deleteSubdomain: (accountId) =>
      executor.write(async (ctx) => {
        await ctx.lock(workersSubdomainLock(accountId));
        const deleted = await ctx.db.deleteFrom('worker_subdomains').where('account_id', '=', accountId).executeTakeFirst();
        if (deleted.numDeletedRows === 0n) throw new NotFoundError('workers_subdomain', accountId);
        await markChanged(ctx);
      }),
  };
}

async function requireScript(db: Db, accountId: string, script: string | null): Promise<void> {
  if (script !== null && (await scriptRow(db, accountId, script)) === undefined) throw new NotFoundError('worker_script', script);
}

async function refuseTaken(db: Db, zoneId: string, pattern: string, except: string | null): Promise<void> {
  let query = db.selectFrom('worker_routes').select(['id', 'script']).where('zone_id', '=', zoneId).where('pattern', '=', pattern);
  if (except !== null) query = query.where('id', '!=', except);
  const taken = await query.executeTakeFirst();
  if (taken !== undefined) throw new WorkerRouteExistsError(pattern, taken.script);
}

async function scriptRoutes(db: Db, accountId: string, name: string) {
  const rows = await db
    .selectFrom('worker_routes')
    .innerJoin('zones', 'zones.id', 'worker_routes.zone_id')
    .select(['worker_routes.id', 'worker_routes.zone_id', 'worker_routes.pattern', 'worker_routes.script', 'zones.name as zone_name'])
    .where('zones.account_id', '=', accountId)
    .where('worker_routes.script', '=', name)
    .orderBy('worker_routes.pattern')
    .execute();
  return rows.map((row) => ({ ...toRoute(row), zone_name: row.zone_name }));
}

