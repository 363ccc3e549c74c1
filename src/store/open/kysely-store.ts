import { projectFile } from '../../project-files';
import { sql, type Kysely } from 'kysely';
import { systemClock, type Clock } from '../clock';
import { storeDump } from './dump';
import type { EngineTraits } from '../engine/traits';
import { accountRepository } from '../repositories/accounts';
import { certificatePackRepository } from '../repositories/certificate-packs';
import { changeMarker } from '../repositories/change-marker';
import { invitationRepository } from '../repositories/invitations';
import { ACCOUNT_JOBS, logpushJobRepository, ZONE_JOBS } from '../repositories/logpush-jobs';
import { userRepository } from '../repositories/users';
import { wafRepository } from '../repositories/waf';
import { zoneRepository } from '../repositories/zones';
import { migrateToLatest } from '../schema/migrations';
import type { Database } from '../schema/tables';
import { insertSeed, isEmpty } from '../seed/insert';
import { rulesetRepository } from '../rulesets/repository';
import { RulesetCaches } from '../rulesets/version-cache';
import { SeededRows } from '../seeded-rows';
import { checkedSeed } from '../seed/checked-seed';
import type { Repositories, Store } from '../store';
import { createEnvironment } from '../transaction/environment';
import { transactionExecutor, type Executor } from '../transaction/executor';
import { standaloneExecutor } from '../transaction/standalone';
import { runInTransaction } from '../transaction/run-in-transaction';
import type { Account, Zone } from '../types';
import { SEED_LOCK } from '../write-locks';
import { SecretsKeyMissingError } from '../errors';
import { assetOperations, deployedWorkersReader, routeOperations, scheduleOperations, scriptOperations, type SecretBox } from '../workers';

/** The fixtures that ship with the project. */
export const DEFAULT_SEED_FILE = projectFile('fixtures', 'seed.json');

export interface StoreOptions {
  clock?: Clock;
  /**
   * Fixtures loaded when the database is empty: a file path, or `false` to start empty.
   * Defaults to the project's fixtures. A database holding data is never seeded again.
   */
  seed?: string | false;
  /**
   * Seals workers' secret values (and opens them for the runtime's read model). Without one,
   * a SQLite store in a data directory uses that directory's key file (made once), and any
   * other store refuses to write a secret.
   */
  secrets?: SecretBox;
}

/** What one store keeps in memory, shared by all its reads and transactions. */
interface StoreMemory {
  readonly accounts: SeededRows<Account>;
  readonly zones: SeededRows<Zone>;
  readonly rulesets: RulesetCaches;
  /** The secrets key, asked for when a secret is sealed or opened. */
  readonly secrets: () => SecretBox;
}

/**
 * Builds the store over any Kysely database: migrates it, seeds it when empty, and hands
 * out repositories. Engine specifics stay in `engine` (and in the Kysely dialect).
 */
export async function openKyselyStore(
  db: Kysely<Database>,
  engine: EngineTraits,
  options: StoreOptions = {},
  defaultSecrets?: () => SecretBox,
): Promise<Store> {
  const env = createEnvironment(db, options.clock ?? systemClock, engine);
  const given = options.secrets;
  const secrets = given
    ? () => given
    : (defaultSecrets ??
      (() => {
        throw new SecretsKeyMissingError('no workers secrets key was given to this store: set WORKERS_SECRETS_KEY');
      }));
  const memory: StoreMemory = { accounts: new SeededRows(), zones: new SeededRows(), rulesets: new RulesetCaches(), secrets };
  try {
    await migrateToLatest(db as Kysely<unknown>, engine.location);
    const seedFile = options.seed ?? DEFAULT_SEED_FILE;
    if (seedFile !== false && (await standaloneExecutor(env).read((ctx) => isEmpty(ctx.db)))) {
      const seed = await checkedSeed(seedFile);
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
          engine.isUniqueViolation(error) && !(await standaloneExecutor(env).read((ctx) => isEmpty(ctx.db)));
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
    ...everyRepository(standaloneExecutor(env), memory),
    clock: env.clock,
    dump: storeDump(env),
    deployedWorkers: deployedWorkersReader(standaloneExecutor(env), secrets),
    transaction: (work) => runInTransaction(env, (ctx) => work(new LazyRepositories(transactionExecutor(ctx), memory))),
    changeMarker: () => changeMarker(standaloneExecutor(env)),
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

/**
 * The repositories over one executor, each made when first used: a transaction (one per write
 * request) typically touches one or two of them.
 */
class LazyRepositories implements Repositories {
  #accounts?: Repositories['accounts'];
  #users?: Repositories['users'];
  #invitations?: Repositories['invitations'];
  #zones?: Repositories['zones'];
  #waf?: Repositories['waf'];
  #certificatePacks?: Repositories['certificatePacks'];
  #rulesets?: Repositories['rulesets'];
  #logpushJobs?: Repositories['logpushJobs'];
  #accountLogpushJobs?: Repositories['accountLogpushJobs'];
  #workers?: Repositories['workers'];

  constructor(
    private readonly executor: Executor,
    private readonly memory: StoreMemory,
  ) {}

  get accounts() {
    return (this.#accounts ??= accountRepository(this.executor, this.memory.accounts));
  }
  get users() {
    return (this.#users ??= userRepository(this.executor));
  }
  get invitations() {
    return (this.#invitations ??= invitationRepository(this.executor));
  }
  get zones() {
    return (this.#zones ??= zoneRepository(this.executor, this.memory.zones));
  }
  get waf() {
    return (this.#waf ??= wafRepository(this.executor));
  }
  get certificatePacks() {
    return (this.#certificatePacks ??= certificatePackRepository(this.executor));
  }
  get rulesets() {
    return (this.#rulesets ??= rulesetRepository(this.executor, this.memory.rulesets));
  }
  get logpushJobs() {
    return (this.#logpushJobs ??= logpushJobRepository(this.executor, ZONE_JOBS, this.memory.secrets));
  }
  get accountLogpushJobs() {
    return (this.#accountLogpushJobs ??= logpushJobRepository(this.executor, ACCOUNT_JOBS, this.memory.secrets));
  }
  get workers() {
    return (this.#workers ??= {
      ...scriptOperations(this.executor, this.memory.secrets),
      ...routeOperations(this.executor),
      ...scheduleOperations(this.executor),
      ...assetOperations(this.executor, this.memory.secrets),
    });
  }
}

/** Every repository made at once, as plain members (the store's own, outside transactions). */
function everyRepository(executor: Executor, memory: StoreMemory): Repositories {
  const lazy = new LazyRepositories(executor, memory);
  const names = Object.getOwnPropertyNames(LazyRepositories.prototype).filter((name) => name !== 'constructor') as (keyof Repositories)[];
  return Object.fromEntries(names.map((name) => [name, lazy[name]])) as unknown as Repositories;
}
