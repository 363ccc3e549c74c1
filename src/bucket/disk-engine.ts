// The disk engine lives in ./disk/; this path stays for the catalogue until its next change.
export { DiskEngine } from './disk/engine';
