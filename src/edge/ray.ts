/**
 * Ray ids: 16 hexadecimal digits per request, answered in `cf-ray` as `<id>-<colo>` and logged as
 * `RayID`, which is how a request is found again in the logs. Random, drawn from a pool filled a
 * few thousand ids at a time (one system call per pool, not per request).
 */
import { randomFillSync } from 'node:crypto';

/** The data centre this edge stands for, as `cf-ray` and `EdgeColoCode` name it (Miniflare's own default). */
export const COLO = 'DFW';

const POOL_IDS = 4096;
const pool = Buffer.alloc(POOL_IDS * 8);
let next = POOL_IDS;

export function newRayId(): string {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const start = next++ * 8;
  return pool.toString('hex', start, start + 8);
}

export function cfRay(rayId: string): string {
  return `${rayId}-${COLO}`;
}
