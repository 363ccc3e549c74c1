// The rooms of src/ and the arrows allowed between them (docs/architecture.md draws the map).
// `test/contract/architecture.test.ts` runs these rules; an import the map does not draw fails `npm test`.

/**
 * Each room of src/ and the rooms it may import: one line per room, nothing else is allowed. A room
 * may always import its own files and the neutral helpers at the top of src/ (`src/*.ts`);
 * `generated` is the document's types and bundle. A new room is a new line here (and a row in the
 * table of docs/architecture.md, which the guard test compares with this one).
 */
const ROOMS = {
  platform: ['server', 's3', 'edge', 'edge-steps', 'judge', 'logpush', 'origin', 'runtime', 'tail', 'worker', 'state', 'store', 'bucket', 'faults', 'config-files'],
  server: ['store', 'filter', 'bucket', 'logpush', 'simulator', 'faults', 'rate-limit', 'state', 'tail', 'generated'],
  s3: ['bucket', 'faults', 'config-files'],
  worker: ['bucket', 'config-files'],
  // The runtime of deployed workers stands on the bucket library alone: what is deployed is handed to it.
  runtime: ['bucket'],
  // The simulator is a view of the edge's judgment and log entries: no engine of its own.
  simulator: ['judge', 'logpush', 'filter', 'store'],
  // The judgment stands on the rules language and the store (the deployed rules).
  judge: ['filter', 'store'],
  // Log entries and their delivery: what a request is (the judgment), the jobs (store), the destinations (buckets).
  logpush: ['judge', 'store', 'bucket'],
  // The steps the platform plugs into the edge: judge, then route to a worker or an origin, then log.
  'edge-steps': ['edge', 'edge-pages', 'judge', 'logpush', 'origin'],
  // The origin proxy stands on the platform's pages alone: the edge decides when a request goes to an origin.
  origin: ['edge-pages'],
  state: ['store', 'bucket'],
  faults: ['config-files'],
  store: ['generated'],
  client: ['generated'],
  // The edge is handed the runtime of deployed workers and the steps that judge requests, never imports them.
  edge: ['edge-pages'],
  filter: [],
  bucket: [],
  'config-files': [],
  'rate-limit': [],
  'edge-pages': [],
  // Live tails: sessions, their filters and WebSocket clients; the traces are handed to it by the platform.
  tail: [],
};

/** Where a room's files are. */
const place = (room) => (room === 'generated' ? '^generated/' : `^src/${room}/`);
/** The neutral helpers: single files at the top of src/. */
const HELPERS = '^src/[^/]+\\.ts$';

module.exports = {
  allowed: [
    { comment: "Node's own modules and installed packages.", from: {}, to: { dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg'] } },
    { comment: 'A room uses its own files.', from: { path: '^src/([^/]+)/' }, to: { path: '^src/$1/' } },
    { comment: 'Every room may use the neutral helpers, and they one another.', from: { path: '^src/' }, to: { path: HELPERS } },
    { comment: 'The document types import nothing of ours but themselves.', from: { path: '^generated/' }, to: { path: '^generated/' } },
    ...Object.entries(ROOMS)
      .filter(([, uses]) => uses.length > 0)
      .map(([room, uses]) => ({
        comment: `src/${room} may use ${uses.join(', ')}.`,
        from: { path: place(room) },
        to: { path: `(${uses.map(place).join('|')})` },
      })),
  ],
  allowedSeverity: 'error',
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'An import cycle makes two modules one: neither can be read, tested or moved alone.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'one-front-door',
      comment: 'Another room is reached through its index.ts only, never its inner modules.',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/([^/]+)/.+', pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$', '\\.d\\.ts$'] },
    },
    {
      name: 'server-ground-floor',
      comment: 'src/server/http is the ground floor of the server: it imports nothing above it.',
      severity: 'error',
      from: { path: '^src/server/http/' },
      to: { path: '^src/', pathNot: ['^src/server/http/', '^src/project-files\\.ts$', '^src/in-place-caches\\.ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.d.ts', '.js', '.mjs', '.json'] },
  },
};
// The map itself, for the guard test; not enumerable, since dependency-cruiser refuses keys it does not know.
Object.defineProperty(module.exports, 'rooms', { value: ROOMS, enumerable: false });
