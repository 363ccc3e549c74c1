/**
 * Cron triggers of scripts: each script's set replaced whole, the account's total held to a
 * limit the caller gives, and the claims that make a (script, expression, minute) fire once on
 * however many instances share the database.
 */
import { NotFoundError, TooManyCronTriggersError } from '../errors';
import type { WorkersRepository } from '../store';
import type { Executor } from '../transaction/executor';
import { markChanged } from './changes';
import { workerSchedulesLock, workerScriptLock } from './locks';
import { scriptRow, type Db } from './rows';
import type { WorkerSchedule } from '../worker-types';

export type ScheduleOperations = Pick<WorkersRepository, 'listSchedules' | 'replaceSchedules'>;

/** How long a claim is kept: far longer than any instance's clock may be off or late. */
const CLAIM_KEPT_MS = 24 * 60 * 60 * 1000;

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

/** The claim of one run; false when another caller (another instance) claimed it first. */
export function claimScheduledRun(executor: Executor) {
  return (accountId: string, script: string, cron: string, minute: number): Promise<boolean> =>
    executor.write(async (ctx) => {
      const inserted = await ctx.db
        .insertInto('worker_schedule_runs')
        .values({ account_id: accountId, script_name: script, cron, minute: new Date(minute).toISOString(), claimed_on: ctx.now })
        .onConflict((conflict) => conflict.columns(['account_id', 'script_name', 'cron', 'minute']).doNothing())
        .executeTakeFirst();
      const claimed = Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
      // Old claims go with the first claim of each hour: no run is ever claimed that far back.
      if (claimed && minute % 3_600_000 === 0) {
        await ctx.db.deleteFrom('worker_schedule_runs').where('minute', '<', new Date(minute - CLAIM_KEPT_MS).toISOString()).execute();
      }
      return claimed;
    });
}
