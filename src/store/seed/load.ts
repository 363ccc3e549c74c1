import { readFile } from 'node:fs/promises';
import { SeedFileError } from '../errors';
import { findInconsistencies, formatSeedPath, type SeedPath } from './consistency';
import { seedFileSchema, type SeedFile } from './schema';

/** Enough to fix a file in one go without burying the first problem. */
const MAX_PROBLEMS_SHOWN = 20;

/** Reads and checks a seed file; every problem names the file, the entry and what is wrong. */
export async function loadSeedFile(file: string): Promise<SeedFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new SeedFileError(file, [`cannot be read: ${(error as Error).message}`]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new SeedFileError(file, [`is not valid JSON: ${(error as Error).message}`]);
  }
  const parsed = seedFileSchema().safeParse(raw);
  const problems = parsed.success
    ? findInconsistencies(parsed.data)
    : parsed.error.issues.map((issue) => ({ path: issue.path.map(pathPart), message: issue.message }));
  if (problems.length > 0) {
    const lines = problems
      .slice(0, MAX_PROBLEMS_SHOWN)
      .map((problem) => `${formatSeedPath(problem.path)}${entryLabel(raw, problem.path)}: ${problem.message}`);
    if (problems.length > MAX_PROBLEMS_SHOWN) {
      lines.push(`... and ${problems.length - MAX_PROBLEMS_SHOWN} more`);
    }
    throw new SeedFileError(file, lines);
  }
  return (parsed as { data: SeedFile }).data;
}

function pathPart(part: PropertyKey): string | number {
  return typeof part === 'number' ? part : String(part);
}

/** Names the innermost list entry on the path that has an id, so the entry can be found by search. */
function entryLabel(raw: unknown, path: SeedPath): string {
  let node = raw;
  let label = '';
  for (const part of path) {
    if (node === null || typeof node !== 'object') {
      break;
    }
    node = (node as Record<string | number, unknown>)[part];
    const id = typeof part === 'number' && node !== null && typeof node === 'object' ? (node as { id?: unknown }).id : undefined;
    if (typeof id === 'string' || typeof id === 'number') {
      label = ` (entry id ${id})`;
    }
  }
  return label;
}
