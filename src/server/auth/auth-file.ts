import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import type { CredentialRegistry, Scope } from './credentials';

// Scoped credentials, listed by hash so the file holds no secret:
//   tokens: [{ name, sha256, email?, accounts?, zones? }]
//   keys:   [{ email, sha256, accounts?, zones? }]
// `sha256` is the hex SHA-256 of the token or key (`printf %s "$TOKEN" | sha256sum`).
function buildAuthFileSchema() {
  const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'must be the 64 hex characters of a SHA-256');
  const id32 = z.string().regex(/^[0-9a-f]{32}$/, 'must be a 32-hex identifier');
  const scoped = {
    accounts: z.array(id32).optional(),
    zones: z.array(id32).optional(),
  };
  return z
    .object({
      tokens: z.array(z.object({ name: z.string().min(1), sha256: hex64, email: z.string().email().optional(), ...scoped }).strict()).default([]),
      keys: z.array(z.object({ email: z.string().email(), sha256: hex64, ...scoped }).strict()).default([]),
    })
    .strict();
}

// Built on first use: a start without an auth file neither builds it nor loads zod (see
// deferredPackagesPlugin in scripts/bundles.mjs).
let builtSchema: ReturnType<typeof buildAuthFileSchema> | undefined;
const authFileSchema = () => (builtSchema ??= buildAuthFileSchema());

function scopeOf(entry: { accounts?: string[] | undefined; zones?: string[] | undefined }): Scope {
  if (!entry.accounts && !entry.zones) return { accounts: null, zones: null };
  return { accounts: new Set(entry.accounts ?? []), zones: new Set(entry.zones ?? []) };
}

/** Adds the credentials of an auth file (YAML or JSON) to the registry; throws naming the bad entry. */
export function loadAuthFile(file: string, registry: CredentialRegistry): void {
  let data: unknown;
  try {
    data = parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read the auth file ${file}: ${(error as Error).message}`);
  }
  const parsed = authFileSchema().safeParse(data ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`invalid auth file ${file}: ${issue.path.join('.') || '(root)'} ${issue.message}`);
  }
  for (const token of parsed.data.tokens) {
    registry.addToken(Buffer.from(token.sha256, 'hex'), { name: token.name, email: token.email ?? null, scope: scopeOf(token) });
  }
  for (const key of parsed.data.keys) {
    registry.addKey(key.email, Buffer.from(key.sha256, 'hex'), { name: `key:${key.email}`, email: key.email, scope: scopeOf(key) });
  }
}
