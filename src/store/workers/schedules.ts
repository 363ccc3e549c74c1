/**
 * Cron triggers of scripts: each script's set replaced whole, the account's total held to a
 * limit the caller gives. (The runtime reads them, and claims their runs, through the read model.)
 */
import { NotFoundError, TooManyCronTriggersError } from '../errors';
import type { WorkersRepository } from '../store';
import type { Executor } from '../transaction/executor';
import { markChanged } from './changes';
import { workerSchedulesLock, workerScriptLock } from './locks';
import { scriptRow, type Db } from './rows';
import type { WorkerSchedule } from '../worker-types';

export type ScheduleOperations = Pick<WorkersRepository, 'listSchedules' | 'replaceSchedules'>;

export async function scriptSchedules(db: Db, accountId: string, name: string): Promise<WorkerSchedule[]> {
  return db
    .selectFrom('worker_schedules')
    .select(['cron', 'created_on', 'modified_on'])
    .where('account_id', '=', accountId)
    .where('script_name', '=', name)
    .orderBy('position')
    .execute();
}

export function scheduleOperations(executor: Executor): ScheduleOperations {
  return {
    listSchedules: (accountId, name) =>
      executor.read(async ({ db }) => ((await scriptRow(db, accountId, name)) === undefined ? null : scriptSchedules(db, accountId, name))),

    replaceSchedules: (accountId, name, crons, limit) =>
      executor.write(async (ctx) => {
        await ctx.lock(workerSchedulesLock(accountId));
        await ctx.lock(workerScriptLock(accountId, name));
        if ((await scriptRow(ctx.db, accountId, name)) === undefined) throw new NotFoundError('worker_script', name);
        const others = await ctx.db
          .selectFrom('worker_schedules')
          .select((eb) => eb.fn.countAll<number | string>().as('count'))
          .where('account_id', '=', accountId)
          .where('script_name', '!=', name)
          .executeTakeFirstOrThrow();
        const total = Number(others.count) + crons.length;
        if (total > limit) throw new TooManyCronTriggersError(limit, total);
        const before = new Map((await scriptSchedules(ctx.db, accountId, name)).map((schedule) => [schedule.cron, schedule]));
        await ctx.db.deleteFrom('worker_schedules').where('account_id', '=', accountId).where('script_name', '=', name).execute();
        const rows = crons.map((cron, position) => ({
          account_id: accountId,
          script_name: name,
          cron,
          position,
          created_on: before.get(cron)?.created_on ?? ctx.now,
          modified_on: before.get(cron)?.modified_on ?? ctx.now,
        }));
        if (rows.length > 0) await ctx.db.insertInto('worker_schedules').values(rows).execute();
        await markChanged(ctx);
        return rows.map(({ cron, created_on, modified_on }) => ({ cron, created_on, modified_on }));
      }),
  };
}
