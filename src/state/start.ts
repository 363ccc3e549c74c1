/**
 * Starting the platform from a state file: loaded when the place is empty (a first start),
 * left alone when it holds state already (any later start keeps what the platform did since).
 */
import { importState, isPlaceEmpty } from './import';
import { openPlace, type PlaceOptions } from './place';

export type StartFromState = { imported: true; buckets: number; objects: number; rows: number } | { imported: false };

/**
 * Imports `file` into the place unless it already holds state. Call it before the store and the
 * buckets are opened for serving: the store opened afterwards finds the rows and seeds nothing.
 */
export async function importStateIfEmpty(file: string, options: PlaceOptions): Promise<StartFromState> {
  const place = await openPlace(options);
  try {
    if (!(await isPlaceEmpty(place))) return { imported: false };
    const summary = await importState(file, place);
    return { imported: true, buckets: summary.buckets, objects: summary.objects, rows: summary.rows };
  } finally {
    await place.close();
  }
}
