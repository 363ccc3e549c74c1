/** Workers as the API shows them (the platform's shapes), from the store's records. */
import type { WorkerBinding, WorkerDeployment, WorkerRoute, WorkerScript, WorkerVersion } from '../../store';

export function scriptView(script: WorkerScript, extra: { deployment_id?: string } = {}) {
  const latest = script.latest;
  return {
    id: script.name,
    tag: script.tag,
    etag: latest.etag,
    handlers: latest.handlers,
    created_on: script.created_on,
    modified_on: script.modified_on,
    compatibility_date: latest.compatibility_date,
    compatibility_flags: latest.compatibility_flags,
    has_assets: false,
    has_modules: true,
    logpush: script.settings.logpush,
    usage_model: 'standard' as const,
    tags: script.settings.tags,
    tail_consumers: script.settings.tail_consumers,
    last_deployed_from: latest.source,
    observability: script.settings.observability,
    ...extra,
  };
}

export function bindingView(binding: WorkerBinding) {
  return { ...binding };
}

export function versionView(version: WorkerVersion) {
  return {
    id: version.id,
    number: version.number,
    metadata: {
      created_on: version.created_on,
      modified_on: version.created_on,
      source: version.source,
      author_email: version.author_email,
      hasPreview: false,
    },
    annotations: version.annotations,
    resources: {
      bindings: version.bindings.map(bindingView),
      script: { etag: version.etag, handlers: version.handlers, last_deployed_from: version.source },
      script_runtime: { compatibility_date: version.compatibility_date, compatibility_flags: version.compatibility_flags, usage_model: 'standard' },
    },
  };
}

export function deploymentView(deployment: WorkerDeployment) {
  return {
    id: deployment.id,
    source: deployment.source,
    strategy: deployment.strategy,
    author_email: deployment.author_email,
    created_on: deployment.created_on,
    versions: deployment.versions,
    annotations: deployment.annotations,
  };
}

export function routeView(route: WorkerRoute) {
  return { id: route.id, pattern: route.pattern, ...(route.script === null ? {} : { script: route.script }) };
}

/** The version whose bindings and compatibility the script's settings show: the serving one, or the newest. */
export function servingVersionId(script: WorkerScript): string {
  const shares = script.deployment?.versions ?? [];
  return [...shares].sort((a, b) => b.percentage - a.percentage)[0]?.version_id ?? script.latest.id;
}
