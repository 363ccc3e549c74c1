import type { PreparedMock } from './mock-server';

/**
 * The mock's operations as the mock's bundle carries them, prepared when the bundle was built
 * (scripts/bundles.mjs puts them in place of this module); undefined when running from the
 * sources, which prepare them at the start.
 */
export const prebuiltMock: PreparedMock | undefined = undefined;
