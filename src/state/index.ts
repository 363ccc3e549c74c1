/**
 * Saving and loading the whole platform's state (`npm run state`, and a start from a state file):
 * the management API's store and every bucket of every account, in one file. See
 * docs/server.md, "Saving and loading state", for the commands and the file format.
 */
export { exportState, type StatePlace, type StateSummary } from './export';
export { importState, isPlaceEmpty, StateTargetNotEmptyError } from './import';
export { readStateHeader, StateFileError, STATE_FORMAT, STATE_FORMAT_VERSION } from './format';
export { openPlace, type OpenPlace, type PlaceOptions } from './place';
export { importStateIfEmpty, type StartFromState } from './start';
