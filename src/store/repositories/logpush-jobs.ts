import type { Selectable } from 'kysely';
import { fromFlag, toFlag } from '../codecs';
import { NotFoundError } from '../errors';
import type { LogpushJobsTable } from '../schema/tables';
import { lockingExecutor, type Executor, type ReadContext } from '../session';
import type { LogpushJobRepository } from '../store';
import type { LogpushJob } from '../types';
import { zoneLock } from '../write-locks';

/** Name of the database counter that hands out job ids. */
export const LOGPUSH_JOB_COUNTER = 'logpush_jobs';

export function logpushJobRepository(executor: Executor): LogpushJobRepository {
  /** Everything here belongs to one zone: a write transaction locks the zone first. */
  const ofZone = (zoneId: string) => lockingExecutor(executor, zoneLock(zoneId));
  return {
    get: (zoneId, id) => ofZone(zoneId).readStatement(({ db }) => findJob(db, zoneId, id)),

    list: (zoneId) =>
      ofZone(zoneId).read(async ({ db }) => {
        const rows = await db
          .selectFrom('logpush_jobs')
          .selectAll()
          .where('zone_id', '=', zoneId)
          .orderBy('id')
          .execute();
        return rows.map(toJob);
      }),

    create: (zoneId, input) =>
      ofZone(zoneId).write(async (ctx) => {
        const zone = await ctx.db.selectFrom('zones').select('id').where('id', '=', zoneId).executeTakeFirst();
        if (zone === undefined) {
          throw new NotFoundError('zone', zoneId);
        }
        const row: Selectable<LogpushJobsTable> = {
            id: await ctx.dialect.counters.next(ctx.db, LOGPUSH_JOB_COUNTER),
            zone_id: zoneId,
            name: input.name ?? null,
            dataset: input.dataset,
            destination_conf: input.destination_conf,
            logpull_options: input.logpull_options ?? null,
            enabled: toFlag(input.enabled ?? false),
            frequency: input.frequency ?? 'high',
            kind: input.kind ?? '',
            last_complete: null,
            last_error: null,
            error_message: null,
            created_on: ctx.now,
        };
        await ctx.db.insertInto('logpush_jobs').values(row).execute();
        return toJob(row);
      }),

    update: (zoneId, id, patch) =>
      ofZone(zoneId).write(async (ctx) => {
        const current = await findJob(ctx.db, zoneId, id);
        if (current === null) {
          throw new NotFoundError('logpush_job', String(id));
        }
        const updated: LogpushJob = {
          ...current,
          name: patch.name === undefined ? current.name : patch.name,
          destination_conf: patch.destination_conf ?? current.destination_conf,
          logpull_options: patch.logpull_options === undefined ? current.logpull_options : patch.logpull_options,
          enabled: patch.enabled ?? current.enabled,
          frequency: patch.frequency ?? current.frequency,
          kind: patch.kind ?? current.kind,
        };
        await ctx.db
          .updateTable('logpush_jobs')
          .set({
            name: updated.name,
            destination_conf: updated.destination_conf,
            logpull_options: updated.logpull_options,
            enabled: toFlag(updated.enabled),
            frequency: updated.frequency,
            kind: updated.kind,
          })
          .where('zone_id', '=', zoneId)
          .where('id', '=', id)
          .execute();
        return updated;
      }),

    delete: (zoneId, id) =>
      ofZone(zoneId).write(async (ctx) => {
        const deleted = Number.isSafeInteger(id)
          ? await ctx.db.deleteFrom('logpush_jobs').where('zone_id', '=', zoneId).where('id', '=', id).executeTakeFirst()
          : undefined;
        if (deleted === undefined || deleted.numDeletedRows === 0n) {
          throw new NotFoundError('logpush_job', String(id));
        }
      }),
  };
}

async function findJob(db: ReadContext['db'], zoneId: string, id: number): Promise<LogpushJob | null> {
  if (!Number.isSafeInteger(id)) {
    return null;
  }
  const row = await db
    .selectFrom('logpush_jobs')
    .selectAll()
    .where('zone_id', '=', zoneId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined ? null : toJob(row);
}

function toJob(row: Selectable<LogpushJobsTable>): LogpushJob {
  return {
    id: row.id,
    name: row.name,
    dataset: row.dataset,
    destination_conf: row.destination_conf,
    logpull_options: row.logpull_options,
    enabled: fromFlag(row.enabled),
    frequency: row.frequency as LogpushJob['frequency'],
    kind: row.kind,
    last_complete: row.last_complete,
    last_error: row.last_error,
    error_message: row.error_message,
    created_on: row.created_on,
  };
}
