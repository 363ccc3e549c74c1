/** The management API server: the app factory and its configuration. */
export { createApp, httpServerOptions, type App, type AppOptions } from './app';
export { loadConfig, DEFAULT_USER_EMAIL, type ServerConfig } from './config';
export { CredentialRegistry, everything, sha256, type Principal, type Scope } from './auth/credentials';
export { basePath } from './http/openapi-document';
export { openServerBuckets, openServerStore } from './open-state';
