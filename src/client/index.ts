// Typed client for the management API: openapi-fetch over the generated types, with either
// credential scheme, envelope unwrapping into typed results or ApiError, and page iteration.
export { createApiClient, type ApiClient, type ClientOptions, type Credentials } from './client';
export { ApiError, unwrap, type ApiResult, type ErrorItem } from './envelope';
export { paginate, type PageFetch } from './paginate';
export type { paths, components, operations } from '../../generated/api';
