export {
  AccountBuckets,
  BucketCatalogue,
  BucketCatalogueError,
  CatalogueCode,
  HOME_ACCOUNT_ID,
  requireBucketName,
  type BucketInfo,
  type BucketPage,
  type CatalogueOptions,
  type CreateOptions,
  type ListOptions as BucketListOptions,
  type Where,
} from './catalogue';
export { DirectoryStorage } from './directory-storage';
export { BucketStorageError, openBucketCatalogue, openCatalogueStorage, type DatabasePoolSettings, type OpenCatalogueOptions } from './open-catalogue';
export type {
  BucketJurisdiction,
  BucketLocation,
  BucketRecord,
  BucketSettingsPatch,
  BucketStorageClass,
  CatalogueStorage,
} from './storage';
