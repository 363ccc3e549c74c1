/**
 * The persistence layer of the management API: an async Store of typed repositories over
 * one query layer (Kysely), on embedded SQLite or on PostgreSQL. Everything the rest of
 * the project may use is exported here.
 */
export type {
  AccountOrder,
  AccountRepository,
  CertificatePackListOptions,
  CertificatePackOrder,
  CertificatePackRepository,
  DumpEntry,
  DumpRow,
  DumpValue,
  InvitationRepository,
  LogpushJobRepository,
  MigrationTransition,
  Repositories,
  RulesetOrder,
  RulesetRepository,
  RulesetWriteOptions,
  RuleAddOptions,
  RuleUpdateOptions,
  Store,
  UserRepository,
  WafRepository,
  WorkersRepository,
  RuleWriteOptions,
  StoreDump,
  ZoneOrder,
  ZoneRepository,
} from './store';
export * from './types';
export { fixedClock, formatTimestamp, parseTimestamp, steppingClock, systemClock, type Clock } from './clock';
export { isId, newId } from './ids';
export { frozenJson } from './codecs';
export * from './errors';
export { DEFAULT_SEED_FILE, type StoreOptions } from './open/kysely-store';
export type { SeedFile, SeedRule, SeedRuleset, SeedZone } from './seed/schema';
export { openSqliteStore, SQLITE_FILE_NAME, type SqliteStoreOptions } from './sqlite/open';
export { openPostgresStore, type PostgresPoolOptions, type PostgresStoreOptions } from './postgres/open';
export { parseDatabaseUrl, type DatabaseUrl } from '../database-url';
export * from './worker-types';
export * from './workers';
