import { createHash } from 'node:crypto';
import type { UploadedPart } from '../contract';
import type { PartRecord } from '../engine';
import { badUpload, duplicatePart, entityTooSmall, invalidPart, describe, MAX_PART_NUMBER } from '../shared';

export function requirePartNumber(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PART_NUMBER) {
    throw new TypeError(
      `Part number must be between 1 and ${MAX_PART_NUMBER} (inclusive). Actual value was: ${String(value)}`,
    );
  }
  return value;
}

/** Checks the `complete` argument's shape. */
export function requireUploadedParts(value: unknown): UploadedPart[] {
  if (!Array.isArray(value)) {
    throw new TypeError(`complete expects an array of uploaded parts, not ${describe(value)}.`);
  }
  return value.map((part: unknown) => {
    if (part === null || typeof part !== 'object') {
      throw new TypeError(`Each uploaded part must be an object with partNumber and etag, not ${describe(part)}.`);
    }
    const { partNumber, etag } = part as Record<string, unknown>;
    if (typeof etag !== 'string') throw new TypeError(`An uploaded part's etag must be a string, not ${describe(etag)}.`);
    return { partNumber: requirePartNumber(partNumber), etag };
  });
}

/** The parts that form the object, in part-number order, and the object's etag and size. */
export interface Assembly {
  parts: PartRecord[];
  etag: string;
  size: number;
}

/**
 * Validates the parts named on completion against those stored: each once, each with its current
 * etag, all but the last of one size of at least `minPartSize`, the last no larger.
 */
export function assembleParts(
  named: UploadedPart[],
  stored: ReadonlyMap<number, PartRecord>,
  minPartSize: number,
): Assembly {
  if (named.length === 0) throw badUpload('At least one part is required.');
  const seen = new Set<number>();
  const parts = named.map(({ partNumber, etag }) => {
    if (seen.has(partNumber)) throw duplicatePart(partNumber);
    seen.add(partNumber);
    const part = stored.get(partNumber);
    if (part?.etag !== etag) throw invalidPart(partNumber);
    return part;
  });
  // Assembly is in part-number order, whatever order the parts were named in.
  parts.sort((a, b) => a.partNumber - b.partNumber);
  const uniform = parts[0]!.size;
  for (const part of parts.slice(0, -1)) {
    if (part.size < minPartSize) throw entityTooSmall(part.partNumber, part.size, minPartSize);
    if (part.size !== uniform) {
      throw badUpload(
        `All parts but the last must have the same size: part ${part.partNumber} has ${part.size} bytes, part ${parts[0]!.partNumber} has ${uniform}.`,
      );
    }
  }
  const last = parts[parts.length - 1]!;
  if (parts.length > 1 && last.size > uniform) {
    throw badUpload(
      `The last part may not be larger than the others: part ${last.partNumber} has ${last.size} bytes, the others ${uniform}.`,
    );
  }
  const md5s = createHash('md5');
  for (const part of parts) md5s.update(Buffer.from(part.md5, 'hex'));
  return {
    parts,
    etag: `${md5s.digest('hex')}-${parts.length}`,
    size: parts.reduce((sum, part) => sum + part.size, 0),
  };
}
