/** Workers deployed through the API: what the store keeps of them, and the runtime's read model. */
export { loadSecretBox, SecretBox, SecretSealError, SECRETS_KEY_FILE, SECRETS_KEY_VARIABLE } from './secret-box';
export { deployedWorkersReader } from './read-model';
export { routeOperations } from './routes';
export { scheduleOperations } from './schedules';
export { scriptOperations } from './scripts';
export { assetOperations } from './assets';
export { ASSET_TOKEN_PURPOSE, TOKEN_SECONDS as ASSET_TOKEN_SECONDS } from './asset-tokens';
