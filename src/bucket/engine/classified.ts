/**
 * Makes the listed async methods of `type` reject with what `classify` makes of their errors. An
 * engine (or a catalogue's storage) says once, at its edge, which of its own failures mean storage
 * out of reach or full (`StorageUnavailableError`, `StorageFullError`), whichever of its calls
 * met them; everything else passes as it was.
 */
export function classifyFailures<T extends object>(
  type: { prototype: T },
  methods: readonly (keyof T & string)[],
  classify: (self: T, error: unknown) => unknown,
): void {
  const prototype = type.prototype as Record<string, unknown>;
  for (const method of methods) {
    const run = prototype[method] as (...args: unknown[]) => Promise<unknown>;
    prototype[method] = function (this: T, ...args: unknown[]) {
      return run.apply(this, args).catch((error: unknown) => {
        throw classify(this, error);
      });
    };
  }
}

/** The methods of a storage engine that reach its storage. */
export const ENGINE_METHODS = [
  'head',
  'checkLive',
  'read',
  'put',
  'delete',
  'list',
  'createUpload',
  'uploadStatus',
  'putPart',
  'completeUpload',
  'abortUpload',
  'expireUploads',
  'activeUploads',
  'uploadParts',
  'snapshot',
] as const;

/** The methods of a catalogue's storage that reach its storage. */
export const CATALOGUE_STORAGE_METHODS = ['create', 'get', 'accounts', 'list', 'update', 'cors', 'lifecycle', 'engine', 'delete'] as const;
