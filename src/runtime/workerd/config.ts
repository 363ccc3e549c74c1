/**
 * workerd's configuration for one version of a script: its modules, compatibility and bindings,
 * listening on a Unix socket of its own. What the worker can reach is what this names and
 * nothing else: no disk service, no other script, the buckets of its bindings through the
 * platform's bucket service, secrets from the process's own environment (never written to a
 * file), and outbound `fetch` to the network.
 *
 * Beside the worker, a small service of the platform's own (`trigger`) runs its cron triggers:
 * on its own socket (in the runtime's private directory, never the edge's), it calls the
 * worker's `scheduled` handler through a service binding (`Fetcher.scheduled()`, workerd's
 * `service_binding_extra_handlers`) and answers the outcome. The worker has no binding to it and
 * gains nothing it could reach.
 */
import type { DeployedModule, DeployedVersion } from '../deployed';
import { data, list, text } from './capnp-text';

export interface VersionConfig {
  version: DeployedVersion;
  /** Where the worker answers (HTTP over a Unix socket). */
  socketPath: string;
  /** Where the process answers the runtime's probe, on the thread the worker runs on. */
  probeSocketPath: string;
  /** Where the process takes the platform's cron triggers for the worker. */
  triggerSocketPath: string;
  /** The bucket service (HTTP over a Unix socket). */
  bucketSocketPath: string;
  /** The assets service (HTTP over a Unix socket). */
  assetsSocketPath: string;
  /** The header workerd adds to every bucket or assets call, and the grant of each r2_bucket or assets binding by its name. */
  grantHeader: string;
  grants: Map<string, string>;
  /** The environment variable holding each secret_text binding's value, by binding name. */
  secretVariables: Map<string, string>;
  /** The header the edge sends `request.cf` in. */
  cfBlobHeader: string;
  /** The header the edge sends the client's scheme in. */
  protoHeader: string;
  /** V8's heap limit for the worker, in MiB (the platform's memory limit). */
  heapMiB: number;
  /** While the script is tailed: the platform's tail worker, and the trace sink it posts to with its grant. */
  tail?: { source: string; sinkSocketPath: string; grantHeader: string; grant: string };
}

/**
 * The trigger service: `POST /?cron=...&time=<ms>` runs the worker's `scheduled` handler and
 * answers workerd's outcome (`{ outcome, noRetry }`).
 */
const TRIGGER_MODULE = `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const result = await env.WORKER.scheduled({ cron: url.searchParams.get('cron') ?? '', scheduledTime: new Date(Number(url.searchParams.get('time'))) });
    return Response.json(result);
  },
};`;

/** Thrown for a version workerd cannot be given as it is. */
export class VersionConfigError extends Error {
  override readonly name = 'VersionConfigError';
}

function moduleEntry(module: DeployedModule): string | undefined {
  const name = text(module.name);
  const utf8 = () => Buffer.from(module.bytes).toString('utf8');
  switch (module.type) {
    case 'esm':
      return `(name = ${name}, esModule = ${text(utf8())})`;
    case 'commonjs':
      return `(name = ${name}, commonJsModule = ${text(utf8())})`;
    case 'text':
      return `(name = ${name}, text = ${text(utf8())})`;
    case 'data':
      return `(name = ${name}, data = ${data(module.bytes)})`;
    case 'wasm':
      return `(name = ${name}, wasm = ${data(module.bytes)})`;
    case 'sourcemap':
      // Source maps are for stack traces on the platform's side; workerd takes none.
      return undefined;
  }
}

/** The configuration text (workerd's capnp format) of one version. */
export function versionConfig(config: VersionConfig): string {
  const { version } = config;
  const main = version.modules.find((module) => module.name === version.main_module);
  if (!main) throw new VersionConfigError(`the main module ${version.main_module} is not among the version's modules`);
  // workerd takes the first module as the main one.
  const ordered = [main, ...version.modules.filter((module) => module !== main)];
  let modules: string[];
  try {
    modules = ordered.map(moduleEntry).filter((entry): entry is string => entry !== undefined);
  } catch (error) {
    throw new VersionConfigError(`a module cannot be given to the runtime: ${(error as Error).message}`);
  }
  const bindings: string[] = [];
  const bucketServices: string[] = [];
  for (const binding of version.bindings) {
    const name = text(binding.name);
    switch (binding.type) {
      case 'plain_text':
        bindings.push(`(name = ${name}, text = ${text(binding.text)})`);
        break;
      case 'json':
        bindings.push(`(name = ${name}, json = ${text(JSON.stringify(binding.json))})`);
        break;
      case 'secret_text':
        bindings.push(`(name = ${name}, fromEnvironment = ${text(config.secretVariables.get(binding.name)!)})`);
        break;
      case 'r2_bucket': {
        const service = `bucket-${bucketServices.length}`;
        bindings.push(`(name = ${name}, r2Bucket = ${text(service)})`);
        const inject = `injectRequestHeaders = [(name = ${text(config.grantHeader)}, value = ${text(config.grants.get(binding.name)!)})]`;
        bucketServices.push(`(name = ${text(service)}, external = (address = ${text(`unix:${config.bucketSocketPath}`)}, http = (${inject})))`);
        break;
      }
      case 'assets': {
        const grant = config.grants.get(binding.name);
        if (grant === undefined) throw new VersionConfigError(`binding ${binding.name}: the version has no assets`);
        const service = `assets-${bucketServices.length}`;
        bindings.push(`(name = ${name}, service = ${text(service)})`);
        const inject = `injectRequestHeaders = [(name = ${text(config.grantHeader)}, value = ${text(grant)})]`;
        bucketServices.push(`(name = ${text(service)}, external = (address = ${text(`unix:${config.assetsSocketPath}`)}, http = (${inject})))`);
        break;
      }
    }
  }
  const worker = [
    `modules = ${list(modules)}`,
    `compatibilityDate = ${text(version.compatibility_date)}`,
    `compatibilityFlags = ${list(version.compatibility_flags.map(text))}`,
    `bindings = ${list(bindings)}`,
    'globalOutbound = "internet"',
    ...(config.tail ? ['tails = ["tail"]'] : []),
  ];
  const tailServices = config.tail
    ? [
        `(name = "tail", worker = (modules = [(name = "tail.js", esModule = ${text(config.tail.source)})], compatibilityDate = "2024-01-01", bindings = [(name = "SINK", service = "trace-sink")], globalOutbound = "none"))`,
        `(name = "trace-sink", external = (address = ${text(`unix:${config.tail.sinkSocketPath}`)}, http = (injectRequestHeaders = [(name = ${text(config.tail.grantHeader)}, value = ${text(config.tail.grant)})])))`,
      ]
    : [];
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "worker", worker = (${worker.join(', ')})),
    (name = "probe", worker = (modules = [(name = "probe.js", esModule = "export default { fetch: () => new Response(null, { status: 204 }) };")], compatibilityDate = "2024-01-01", globalOutbound = "none")),
    (name = "trigger", worker = (modules = [(name = "trigger.js", esModule = ${text(TRIGGER_MODULE)})], compatibilityDate = "2024-01-01", compatibilityFlags = ["service_binding_extra_handlers"], bindings = [(name = "WORKER", service = "worker")], globalOutbound = "none")),
    (name = "none", network = (allow = [])),
    ${[...bucketServices, ...tailServices, '(name = "internet", network = (allow = ["public", "private", "local"], tlsOptions = (trustBrowserCas = true)))'].join(',\n    ')}
  ],
  sockets = [
    (name = "edge", address = ${text(`unix:${config.socketPath}`)}, http = (cfBlobHeader = ${text(config.cfBlobHeader)}, forwardedProtoHeader = ${text(config.protoHeader)}), service = "worker"),
    (name = "probe", address = ${text(`unix:${config.probeSocketPath}`)}, http = (), service = "probe"),
    (name = "trigger", address = ${text(`unix:${config.triggerSocketPath}`)}, http = (), service = "trigger"),
  ],
  v8Flags = [${text(`--max-old-space-size=${config.heapMiB}`)}],
  logging = (structuredLogging = true),
);
`;
}
