/**
 * The engine's storage was deleted (its bucket deleted elsewhere) before a write could store
 * anything: nothing was stored. An engine shared with a catalogue that deletes buckets rejects a
 * write with this rather than store what no one could read; the runtime answers it as the
 * binding's "no such bucket" (10006). A module of its own, importing nothing: the runtime's error
 * table (errors.ts) needs it, and the engine interface's types lead back to errors.ts.
 */
export class StorageDeletedError extends Error {
  override readonly name = 'StorageDeletedError';

  constructor(readonly storage: string) {
    super(`The bucket whose storage is ${storage} was deleted; nothing was stored.`);
  }
}
