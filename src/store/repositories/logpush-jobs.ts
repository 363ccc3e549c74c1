import type { Selectable } from 'kysely';
import { fromFlag, toFlag } from '../codecs';
import { LOGPUSH_JOB_COUNTER } from '../engine/counters';
import { NotFoundError } from '../errors';
import type { LogpushJobsTable } from '../schema/tables';
import type { ReadContext } from '../transaction/context';
import { lockingExecutor, type Executor } from '../transaction/executor';
import type { LogpushJobRepository } from '../store';
import type { LogpushJob } from '../types';
import { jobLock } from '../write-locks';

/** Where a job's owner is: the zone or account column of the job, and the table of owners. */
export type JobOwner = { column: 'zone_id'; table: 'zones'; kind: 'zone' } | { column: 'account_id'; table: 'accounts'; kind: 'account' };

export const ZONE_JOBS: JobOwner = { column: 'zone_id', table: 'zones', kind: 'zone' };
export const ACCOUNT_JOBS: JobOwner = { column: 'account_id', table: 'accounts', kind: 'account' };

/** The jobs of one kind of owner (zones or accounts); the other kind's jobs are invisible to it. */
export function logpushJobRepository(executor: Executor, owner: JobOwner): LogpushJobRepository {
  /** A write transaction locks the one job it reads or changes, so jobs of one owner never wait on each other. */
  const ofJob = (id: number) => lockingExecutor(executor, jobLock(id));
  return {
    get: (ownerId, id) => ofJob(id).readStatement(({ db }) => findJob(db, owner, ownerId, id)),

    // No write depends on the list of an owner's jobs: it locks nothing.
    list: (ownerId) =>
      executor.read(async ({ db }) => {
        const rows = await db
          .selectFrom('logpush_jobs')
          .selectAll()
          .where(owner.column, '=', ownerId)
          .orderBy('id')
          .execute();
        return rows.map(toJob);
      }),

    // Nothing to lock: no rule spans an owner's jobs, and the new job's id is this write's alone.
    create: (ownerId, input) =>
      executor.write(async (ctx) => {
        const found = await ctx.db.selectFrom(owner.table).select('id').where('id', '=', ownerId).executeTakeFirst();
        if (found === undefined) {
          throw new NotFoundError(owner.kind, ownerId);
        }
        const row: Selectable<LogpushJobsTable> = {
            id: await ctx.engine.counters.next(ctx.db, LOGPUSH_JOB_COUNTER),
            zone_id: owner.column === 'zone_id' ? ownerId : null,
            account_id: owner.column === 'account_id' ? ownerId : null,
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

    update: (ownerId, id, patch) =>
      ofJob(id).write(async (ctx) => {
        const current = await findJob(ctx.db, owner, ownerId, id);
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
          .where(owner.column, '=', ownerId)
          .where('id', '=', id)
          .execute();
        return updated;
      }),

    delete: (ownerId, id) =>
      ofJob(id).write(async (ctx) => {
        const deleted = Number.isSafeInteger(id)
          ? await ctx.db.deleteFrom('logpush_jobs').where(owner.column, '=', ownerId).where('id', '=', id).executeTakeFirst()
          : undefined;
        if (deleted === undefined || deleted.numDeletedRows === 0n) {
          throw new NotFoundError('logpush_job', String(id));
        }
      }),
  };
}

async function findJob(db: ReadContext['db'], owner: JobOwner, ownerId: string, id: number): Promise<LogpushJob | null> {
  if (!Number.isSafeInteger(id)) {
    return null;
  }
  const row = await db
    .selectFrom('logpush_jobs')
    .selectAll()
    .where(owner.column, '=', ownerId)
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
