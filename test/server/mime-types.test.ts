// mime-types is patched (patches/mime-types+3.0.2.patch) to build its extension maps when they are
// first read instead of when it loads. Its answers must be those the database gives.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// Express's copy (the one the patch applies to), as express requires it.
const require = createRequire(import.meta.url);
const mime = require('mime-types') as {
  charset(type: string): string | false;
  contentType(type: string): string | false;
  lookup(path: string): string | false;
  extension(type: string): string | false;
  extensions: Record<string, string[]>;
  types: Record<string, string>;
};
const db = require('mime-db') as Record<string, { extensions?: string[]; charset?: string }>;
const entries = Object.entries(db);

describe('mime-types, maps built on first use', () => {
  it('answers a charset from the database', () => {
    expect(mime.charset('application/json')).toBe('UTF-8');
    expect(mime.charset('text/plain; format=flowed')).toBe('UTF-8');
    expect(mime.charset('image/png')).toBe(false);
    expect(mime.contentType('application/json')).toBe('application/json; charset=utf-8');
    expect(mime.contentType('text/html; charset=iso-8859-1')).toBe('text/html; charset=iso-8859-1');
  });

  it('turns extensions and paths into types, and types into extensions', () => {
    expect(mime.lookup('json')).toBe('application/json');
    expect(mime.lookup('folder/page.HTML')).toBe('text/html');
    expect(mime.lookup('.mp4')).toBe('video/mp4');
    expect(mime.lookup('unknown-extension')).toBe(false);
    expect(mime.contentType('html')).toBe('text/html; charset=utf-8');
    expect(mime.extension('application/json; charset=utf-8')).toBe('json');
    expect(mime.extension('image/jpeg')).toBe('jpg');
  });

  it('maps every extension of the database, and every type that has extensions', () => {
    const withExtensions = entries.filter(([, entry]) => entry.extensions?.length);
    expect(Object.keys(mime.extensions).sort()).toEqual(withExtensions.map(([type]) => type).sort());
    for (const [type, entry] of withExtensions) {
      expect(mime.extensions[type]).toEqual(entry.extensions);
      // Each extension names one of the types that list it (the best scored, where several do).
      for (const extension of entry.extensions!) expect(db[mime.types[extension]!]!.extensions).toContain(extension);
    }
    expect(mime.types.png).toBe('image/png');
  });
});
