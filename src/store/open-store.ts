import { projectFile } from '../project-files';
import { sql, type Kysely } from 'kysely';
import { systemClock, type Clock } from './clock';
import type { DialectTraits } from './dialect';
import { accountRepository } from './repositories/accounts';
import { certificatePackRepository } from './repositories/certificate-packs';
import { invitationRepository } from './repositories/invitations';
import { ACCOUNT_JOBS, logpushJobRepository, ZONE_JOBS } from './repositories/logpush-jobs';
import { rulesetRepository } from './repositories/rulesets';
import { userRepository } from './repositories/users';
import { wafRepository } from './repositories/waf';
import { zoneRepository } from './repositories/zones';
import { migrateToLatest } from './schema/migrations';
import type { Database } from './schema/tables';
import { insertSeed, isEmpty } from './seed/insert';
import { loadSeedFile } from './seed/load';
import {
  createEnvironment,
  runInTransaction,
  standaloneExecutor,
  transactionExecutor,
  type Executor,
} from './session';
import type { Repositories, Store } from './store';
import { SEED_LOCK } from './write-locks';

/** The fixtures that ship with the project. */
export const DEFAULT_SEED_FILE = projectFile('fixtures', 'seed.json');

export interface StoreOptions {
  clock?: Clock;
  /**
   * Fixtures loaded when the database is empty: a file path, or `false` to start empty.
   * Defaults to the project's fixtures. A database holding data is never seeded again.
   */
  seed?: string | false;
}

/**
 * Builds the store over any Kysely database: migrates it, seeds it when empty, and hands
 * out repositories. Engine specifics stay in `dialect` (and in the Kysely dialect).
 */
export async function openKyselyStore(
  db: Kysely<Database>,
  dialect: DialectTraits,
  options: StoreOptions = {},
): Promise<Store> {
  const env = createEnvironment(db, options.clock ?? systemClock, dialect);
  try {
    await migrateToLatest(db as Kysely<unknown>, dialect.location);
    const seedFile = options.seed ?? DEFAULT_SEED_FILE;
    if (seedFile !== false && (await standaloneExecutor(env).read((ctx) => isEmpty(ctx.db)))) {
      const seed = await loadSeedFile(seedFile);
      try {
        // Another process may have seeded meanwhile: insert only if still empty under the seed lock.
        await runInTransaction(env, async (ctx) => {
          await ctx.lock(SEED_LOCK);
          if (await isEmpty(ctx.db)) {
            await insertSeed(ctx, seed);
          }
        });
      } catch (error) {
        // Engines without a database-wide write lock let two openers both see it empty;
        // the loser's inserts collide with the winner's rows, and the winner's seed stands.
        const seededByAnother =
          dialect.isUniqueViolation(error) && !(await standaloneExecutor(env).read((ctx) => isEmpty(ctx.db)));
        if (!seededByAnother) {
          throw error;
        }
      }
    }
  } catch (error) {
    await db.destroy();
    throw error;
  }

  let closed = false;
  return {
    ...repositories(standaloneExecutor(env)),
    clock: env.clock,
    transaction: (work) => runInTransaction(env, (ctx) => work(repositories(transactionExecutor(ctx)))),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      if (!closed) {
        closed = true;
        await db.destroy();
      }
    },
  };
}

const factories: { [K in keyof Repositories]: (executor: Executor) => Repositories[K] } = {
  accounts: accountRepository,
  users: userRepository,
  invitations: invitationRepository,
  zones: zoneRepository,
  waf: wafRepository,
  certificatePacks: certificatePackRepository,
  rulesets: rulesetRepository,
  logpushJobs: (executor) => logpushJobRepository(executor, ZONE_JOBS),
  accountLogpushJobs: (executor) => logpushJobRepository(executor, ACCOUNT_JOBS),
};

/**
 * The repositories over one executor, each made when first used: a transaction (one per write
 * request) typically touches one or two of them.
 */
function repositories(executor: Executor): Repositories {
  const made: Partial<Record<keyof Repositories, unknown>> = {};
  const lazy = {} as Repositories;
  for (const name of Object.keys(factories) as (keyof Repositories)[]) {
    Object.defineProperty(lazy, name, { enumerable: true, get: () => (made[name] ??= factories[name](executor)) });
  }
  return lazy;
}
