// The rooms of src/ and the arrows allowed between them (docs/architecture.md draws the map).
// `test/contract/architecture.test.ts` runs these rules; a forbidden import fails `npm test`.
/** Rooms that are libraries: they know nothing of the rest of the project. */
const LIBRARIES = ['filter', 'bucket', 'config-files', 'rate-limit'];

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'An import cycle makes two modules one: neither can be read, tested or moved alone.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...LIBRARIES.map((room) => ({
      name: `${room}-is-a-library`,
      comment: `src/${room} is a library: it imports nothing else of the project.`,
      severity: 'error',
      from: { path: `^src/${room}/` },
      // Single files at the top of src/ are neutral helpers any room may use (project paths, URLs).
      to: { path: '^(src|generated)/', pathNot: [`^src/${room}/`, '^src/[^/]+\\.ts$'] },
    })),
    {
      name: 'one-front-door',
      comment: 'Another room is reached through its index.ts only, never its inner modules.',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/([^/]+)/.+', pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$', '\\.d\\.ts$'] },
    },
    {
      name: 'nothing-imports-the-server',
      comment: 'The management API server is a front door: only the platform that starts every face may import it.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/server/', '^src/platform/'] },
      to: { path: '^src/server/' },
    },
    {
      name: 'front-doors-stay-apart',
      comment: 'The S3 endpoint and the worker host share the bucket runtime, never each other.',
      severity: 'error',
      from: { path: '^src/(s3|worker)/' },
      to: { path: '^src/(s3|worker|server|store|simulator)/', pathNot: '^src/$1/' },
    },
    {
      name: 'edge-stands-alone',
      comment: 'The edge routes and answers; how workers run and what judges requests are handed to it, never imported.',
      severity: 'error',
      from: { path: '^src/edge/' },
      to: { path: '^(src|generated)/', pathNot: ['^src/edge/', '^src/[^/]+\\.ts$'] },
    },
    {
      name: 'server-ground-floor',
      comment: 'src/server/http is the ground floor of the server: it imports nothing above it.',
      severity: 'error',
      from: { path: '^src/server/http/' },
      to: { path: '^src/', pathNot: ['^src/server/http/', '^src/project-files\.ts$', '^src/in-place-caches\.ts$'] },
    },
    {
      name: 'store-below-the-server',
      comment: 'The store keeps state; it never knows the HTTP layer or the front doors.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/(server|s3|worker|simulator|client|platform)/' },
    },
    {
      name: 'state-through-store-and-bucket',
      comment: 'Saving and loading state goes through the store and the bucket library, never a front door.',
      severity: 'error',
      from: { path: '^src/state/' },
      to: { path: '^(src|generated)/', pathNot: ['^src/(state|store|bucket)/', '^src/[^/]+\\.ts$'] },
    },
    {
      name: 'client-from-the-document',
      comment: 'The typed client is built from the document alone.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/client/' },
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
