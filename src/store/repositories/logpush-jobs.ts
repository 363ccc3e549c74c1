import type { Selectable } from 'kysely';
import { fromFlag, fromJsonOrNull, toFlag, toJson } from '../codecs';
import { LOGPUSH_JOB_COUNTER } from '../engine/counters';
import { NotFoundError } from '../errors';
import type { LogpushJobsTable } from '../schema/tables';
import type { ReadContext } from '../transaction/context';
import { lockingExecutor, type Executor } from '../transaction/executor';
import type { LogpushJobRepository } from '../store';
import type { LogpushJob, LogpushOutputOptions } from '../types';
import type { SecretBox } from '../workers/secret-box';
import { jobLock } from '../write-locks';
import { openDestination, sealDestination } from './sealed-destinations';

/** Where a job's owner is: the zone or account column of the job, and the table of owners. */
export type JobOwner = { column: 'zone_id'; table: 'zones'; kind: 'zone' } | { column: 'account_id'; table: 'accounts'; kind: 'account' };

export const ZONE_JOBS: JobOwner = { column: 'zone_id', table: 'zones', kind: 'zone' };
export const ACCOUNT_JOBS: JobOwner = { column: 'account_id', table: 'accounts', kind: 'account' };

/** The jobs of one kind of owner (zones or accounts); `secrets` seals their destinations. */
export function logpushJobRepository(executor: Executor, owner: JobOwner, secrets: () => SecretBox): LogpushJobRepository {
  const toJob = (row: Selectable<LogpushJobsTable>) => jobOf(row, secrets);
  /** A write transaction locks the one job it reads or changes, so jobs of one owner never wait on each other. */
  const ofJob = (id: number) => lockingExecutor(executor, jobLock(id));
  return {
    get: (ownerId, id) => ofJob(id).readStatement(({ db }) => findJob(db, owner, ownerId, id, secrets)),

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
        const id = await ctx.engine.counters.next(ctx.db, LOGPUSH_JOB_COUNTER);
        const row: Selectable<LogpushJobsTable> = {
            id,
            zone_id: owner.column === 'zone_id' ? ownerId : null,
            account_id: owner.column === 'account_id' ? ownerId : null,
            name: input.name ?? null,
            dataset: input.dataset,
            destination_conf: sealDestination(secrets, id, input.destination_conf),
            logpull_options: input.logpull_options ?? null,
            output_options: outputOptionsColumn(input.output_options ?? null),
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
        const current = await findJob(ctx.db, owner, ownerId, id, secrets);
        if (current === null) {
          throw new NotFoundError('logpush_job', String(id));
        }
        const updated: LogpushJob = {
          ...current,
          name: patch.name === undefined ? current.name : patch.name,
          destination_conf: patch.destination_conf ?? current.destination_conf,
          logpull_options: patch.logpull_options === undefined ? current.logpull_options : patch.logpull_options,
          output_options: patch.output_options === undefined ? current.output_options : patch.output_options,
          enabled: patch.enabled ?? current.enabled,
          frequency: patch.frequency ?? current.frequency,
          kind: patch.kind ?? current.kind,
        };
        await ctx.db
          .updateTable('logpush_jobs')
          .set({
            name: updated.name,
            // Sealed afresh only when it changes: a job turned on or off keeps its sealed destination.
            ...(patch.destination_conf === undefined ? {} : { destination_conf: sealDestination(secrets, id, patch.destination_conf) }),
            logpull_options: updated.logpull_options,
            output_options: outputOptionsColumn(updated.output_options ?? null),
            enabled: toFlag(updated.enabled),
            frequency: updated.frequency,
            kind: updated.kind,
          })
          .where(owner.column, '=', ownerId)
          .where('id', '=', id)
          .execute();
        return updated;
      }),

    recordDelivery: (ownerId, id, { error }) =>
      ofJob(id).write(async (ctx) => {
        if (!Number.isSafeInteger(id)) return false;
        const status = error === null ? { last_complete: ctx.now, last_error: null, error_message: null } : { last_error: ctx.now, error_message: error };
        const updated = await ctx.db.updateTable('logpush_jobs').set(status).where(owner.column, '=', ownerId).where('id', '=', id).executeTakeFirst();
        return updated.numUpdatedRows > 0n;
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

async function findJob(db: ReadContext['db'], owner: JobOwner, ownerId: string, id: number, secrets: () => SecretBox): Promise<LogpushJob | null> {
  if (!Number.isSafeInteger(id)) {
    return null;
  }
  const row = await db
    .selectFrom('logpush_jobs')
    .selectAll()
    .where(owner.column, '=', ownerId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined ? null : jobOf(row, secrets);
}

function jobOf(row: Selectable<LogpushJobsTable>, secrets: () => SecretBox): LogpushJob {
  return {
    id: row.id,
    name: row.name,
    dataset: row.dataset,
    destination_conf: openDestination(secrets, row.id, row.destination_conf),
    logpull_options: row.logpull_options,
    output_options: fromJsonOrNull<LogpushOutputOptions>(row.output_options),
    enabled: fromFlag(row.enabled),
    frequency: row.frequency as LogpushJob['frequency'],
    kind: row.kind,
    last_complete: row.last_complete,
    last_error: row.last_error,
    error_message: row.error_message,
    created_on: row.created_on,
  };
}

/** A job's output options as their column keeps them: JSON, or null for none. */
function outputOptionsColumn(options: LogpushOutputOptions | null): string | null {
  return options === null ? null : toJson(options);
}
