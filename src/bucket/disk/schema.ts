import type Database from 'better-sqlite3';
import type { PartRecord } from '../engine';
import type { ObjectColumns } from '../object-columns';

/**
 * The deletion mark: one row once the bucket was deleted (see `DiskEngine.removeIfEmpty`). Every
 * write that creates rows refuses a marked database, so a process still holding the bucket open
 * after another deleted it stores nothing where no one would read it.
 */
const DELETION_TABLE = `
CREATE TABLE IF NOT EXISTS deletion (
  only INTEGER PRIMARY KEY CHECK (only = 1),
  deleted_at INTEGER NOT NULL
);
`;

/**
 * Metadata of an on-disk bucket. Keys are stored as UTF-8 BLOBs: compared bytewise, which is the
 * platform's listing order, and free of any text handling. A body lives in `small_bodies` when
 * small, in blob files named by `segments` otherwise, or nowhere when empty.
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS objects (
  key BLOB PRIMARY KEY,
  version TEXT NOT NULL,
  size INTEGER NOT NULL,
  etag TEXT NOT NULL,
  uploaded INTEGER NOT NULL,
  http_metadata TEXT NOT NULL,
  custom_metadata TEXT NOT NULL,
  checksums TEXT NOT NULL,
  encryption TEXT,
  body_id INTEGER,
  segments TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS small_bodies (
  id INTEGER PRIMARY KEY,
  bytes BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS uploads (
  upload_id TEXT PRIMARY KEY,
  key BLOB NOT NULL,
  created INTEGER NOT NULL,
  http_metadata TEXT NOT NULL,
  custom_metadata TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('active', 'completed', 'aborted')),
  checksum TEXT,
  encryption TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS uploads_by_state ON uploads (state, created);
CREATE TABLE IF NOT EXISTS parts (
  upload_id TEXT NOT NULL,
  part_number INTEGER NOT NULL,
  blob TEXT NOT NULL,
  size INTEGER NOT NULL,
  etag TEXT NOT NULL,
  md5 TEXT NOT NULL,
  checksum TEXT,
  iv TEXT,
  PRIMARY KEY (upload_id, part_number)
) WITHOUT ROWID;
${DELETION_TABLE}`;

/**
 * Brings a database written by an earlier version up to SCHEMA, by `PRAGMA user_version`: entry
 * n takes version n to n + 1. Each step tolerates a database SCHEMA just created (already there).
 */
const MIGRATIONS: ((db: Database.Database) => void)[] = [
  // 1: the S3 checksum an upload was created with, and each part's (JSON, null when none).
  (db) => {
    addColumn(db, 'uploads', 'checksum TEXT');
    addColumn(db, 'parts', 'checksum TEXT');
  },
  // 2: the deletion mark. Code of version 1 would not honour it: the version makes it refuse the database.
  (db) => db.exec(DELETION_TABLE),
  // 3: objects and uploads encrypted under a customer key (JSON, null when plain), each part's IV.
  // Code of version 2 would read an encrypted object's bytes as plain: the version makes it refuse.
  (db) => {
    addColumn(db, 'objects', 'encryption TEXT');
    addColumn(db, 'uploads', 'encryption TEXT');
    addColumn(db, 'parts', 'iv TEXT');
  },
];

function addColumn(db: Database.Database, table: string, definition: string): void {
  const name = definition.split(' ')[0]!;
  const columns = db.pragma(`table_info(${table})`) as { name: string }[];
  if (!columns.some((column) => column.name === name)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${definition}`);
}

/**
 * Creates the tables or migrates them, inside the caller's write transaction. A database of a
 * newer version than this code knows is refused: this code would not write what it expects.
 */
export function migrateSchema(db: Database.Database, location: string): void {
  db.exec(SCHEMA);
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new Error(
      `bucket database ${location} has schema version ${version}; this version knows up to ${MIGRATIONS.length}. It was written by a newer version: upgrade the toolkit.`,
    );
  }
  for (const step of MIGRATIONS.slice(version)) step(db);
  if (version < MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
}

/** The metadata columns of an object, in `OBJECT_COLUMNS` order (read as arrays: faster). */
export type { ObjectColumns } from '../object-columns';

export interface ObjectRow {
  key: Buffer;
  version: string;
  size: number;
  etag: string;
  uploaded: number;
  http_metadata: string;
  custom_metadata: string;
  checksums: string;
  encryption: string | null;
}

/** Where an object's body is. */
export interface BodyRow {
  body_id: number | null;
  segments: string | null;
}

export interface UploadRow {
  upload_id: string;
  key: Buffer;
  created: number;
  http_metadata: string;
  custom_metadata: string;
  state: 'active' | 'completed' | 'aborted';
  checksum: string | null;
  encryption: string | null;
}

export interface PartRow {
  part_number: number;
  blob: string;
  size: number;
  etag: string;
  md5: string;
  checksum: string | null;
  iv: string | null;
}

/** A part's row as the engine's record. */
export function toPart(row: Omit<PartRow, 'blob'>): PartRecord {
  const part: PartRecord = { partNumber: row.part_number, size: row.size, etag: row.etag, md5: row.md5 };
  if (row.checksum) part.checksum = JSON.parse(row.checksum);
  if (row.iv) part.iv = row.iv;
  return part;
}

const OBJECT_COLUMNS = 'key, version, size, etag, uploaded, http_metadata, custom_metadata, checksums, encryption';

/** Every statement the engine runs, prepared once. */
export function prepareStatements(db: Database.Database) {
  return {
    head: db.prepare<[Buffer], ObjectColumns>(`SELECT ${OBJECT_COLUMNS} FROM objects WHERE key = ?`).raw(),
    current: db
      .prepare<[Buffer], [...ObjectColumns, bodyId: number | null, segments: string | null]>(
        `SELECT ${OBJECT_COLUMNS}, body_id, segments FROM objects WHERE key = ?`,
      )
      .raw(),
    // The small body through a subquery, not a LEFT JOIN: SQLite (as better-sqlite3 builds it)
    // prepares the join again at each new binding of the key, which cost half of a GET's read.
    read: db
      .prepare<[Buffer], [...ObjectColumns, bodyId: number | null, segments: string | null, bytes: Buffer | null]>(
        `SELECT ${OBJECT_COLUMNS}, body_id, segments, (SELECT bytes FROM small_bodies WHERE id = body_id)
         FROM objects WHERE key = ?`,
      )
      .raw(),
    scanFrom: db
      .prepare<[Buffer, number], ObjectColumns>(`SELECT ${OBJECT_COLUMNS} FROM objects WHERE key >= ? ORDER BY key LIMIT ?`)
      .raw(),
    scanBetween: db
      .prepare<[Buffer, Buffer, number], ObjectColumns>(
        `SELECT ${OBJECT_COLUMNS} FROM objects WHERE key >= ? AND key < ? ORDER BY key LIMIT ?`,
      )
      .raw(),
    upsert: db.prepare<[ObjectRow & BodyRow]>(
      `INSERT OR REPLACE INTO objects (${OBJECT_COLUMNS}, body_id, segments)
       VALUES (:key, :version, :size, :etag, :uploaded, :http_metadata, :custom_metadata, :checksums, :encryption, :body_id, :segments)`,
    ),
    deleteObject: db.prepare<[Buffer]>('DELETE FROM objects WHERE key = ?'),
    insertSmallBody: db.prepare<[Buffer]>('INSERT INTO small_bodies (bytes) VALUES (?)'),
    deleteSmallBody: db.prepare<[number]>('DELETE FROM small_bodies WHERE id = ?'),
    anyObject: db.prepare<[], { found: number }>('SELECT 1 AS found FROM objects LIMIT 1'),
    referencedSegments: db.prepare<[], { segments: string }>('SELECT segments FROM objects WHERE segments IS NOT NULL'),

    insertUpload: db.prepare<[UploadRow]>(
      `INSERT INTO uploads (upload_id, key, created, http_metadata, custom_metadata, state, checksum, encryption)
       VALUES (:upload_id, :key, :created, :http_metadata, :custom_metadata, :state, :checksum, :encryption)`,
    ),
    upload: db.prepare<[string, Buffer], UploadRow>('SELECT * FROM uploads WHERE upload_id = ? AND key = ?'),
    setUploadState: db.prepare<[string, string]>('UPDATE uploads SET state = ? WHERE upload_id = ?'),
    expiredUploads: db.prepare<[number], { upload_id: string }>(
      `SELECT upload_id FROM uploads WHERE state = 'active' AND created <= ?`,
    ),
    activeUploads: db.prepare<[Buffer, Buffer], UploadRow>(
      `SELECT * FROM uploads WHERE state = 'active' AND substr(key, 1, length(?)) = ? ORDER BY key, created, upload_id`,
    ),
    anyActiveUpload: db.prepare<[], { found: number }>(`SELECT 1 AS found FROM uploads WHERE state = 'active' LIMIT 1`),

    parts: db.prepare<[string], PartRow>('SELECT part_number, blob, size, etag, md5, checksum, iv FROM parts WHERE upload_id = ?'),
    partsInOrder: db.prepare<[string], PartRow>(
      'SELECT part_number, blob, size, etag, md5, checksum, iv FROM parts WHERE upload_id = ? ORDER BY part_number',
    ),
    part: db.prepare<[string, number], { blob: string }>('SELECT blob FROM parts WHERE upload_id = ? AND part_number = ?'),
    upsertPart: db.prepare<[string, number, string, number, string, string, string | null, string | null]>(
      'INSERT OR REPLACE INTO parts (upload_id, part_number, blob, size, etag, md5, checksum, iv) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    deleteParts: db.prepare<[string]>('DELETE FROM parts WHERE upload_id = ?'),
    referencedParts: db.prepare<[], { blob: string }>('SELECT blob FROM parts'),

    deleted: db.prepare<[], number>('SELECT 1 FROM deletion').pluck(),
    markDeleted: db.prepare<[number]>('INSERT OR IGNORE INTO deletion (only, deleted_at) VALUES (1, ?)'),
    unmarkDeleted: db.prepare<[]>('DELETE FROM deletion'),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
