/** Which S3 operation a request is: method, path-style address and sub-resource parameters. */
import * as configuration from './bucket-configuration';
import * as buckets from './bucket-operations';
import type { S3Context, S3Response } from './context';
import { invalidArgument, notImplemented, S3Error } from './errors';
import * as multipart from './multipart-operations';
import { getObjectAttributes } from './object-attributes';
import * as objects from './object-operations';
import type { S3Request } from './request';

/** Every operation the router names: what fault rules may match (a name missing here fails tsc). */
export const OPERATION_NAMES = [
  'ListBuckets',
  'HeadBucket',
  'CreateBucket',
  'DeleteBucket',
  'GetBucketLocation',
  'ListObjects',
  'ListObjectsV2',
  'ListObjectVersions',
  'ListMultipartUploads',
  'HeadObject',
  'GetObject',
  'GetObjectAttributes',
  'PutObject',
  'CopyObject',
  'DeleteObject',
  'DeleteObjects',
  'CreateMultipartUpload',
  'UploadPart',
  'UploadPartCopy',
  'ListParts',
  'CompleteMultipartUpload',
  'AbortMultipartUpload',
  'GetBucketCors',
  'PutBucketCors',
  'DeleteBucketCors',
  'GetBucketLifecycleConfiguration',
  'PutBucketLifecycleConfiguration',
  'DeleteBucketLifecycle',
  'GetBucketEncryption',
] as const;
export type OperationName = (typeof OPERATION_NAMES)[number];

export interface Operation {
  name: OperationName;
  run: (context: S3Context) => Promise<S3Response>;
  /** Allowed without a signature on buckets configured for anonymous reads. */
  read?: boolean;
}

const op = (name: OperationName, run: Operation['run'], read = false): Operation => ({ name, run, read });

/** Sub-resources of buckets and objects this endpoint does not serve (ACLs, policies, ...). */
const UNSUPPORTED = [
  'acl',
  'policy',
  'versioning',
  'tagging',
  'website',
  'replication',
  'logging',
  'notification',
  'object-lock',
  'retention',
  'legal-hold',
  'torrent',
  'restore',
  'select',
  'accelerate',
  'requestPayment',
  'analytics',
  'inventory',
  'metrics',
  'ownershipControls',
  'publicAccessBlock',
  'intelligent-tiering',
];

function methodNotAllowed(request: S3Request): S3Error {
  return new S3Error(
    'MethodNotAllowed',
    405,
    `The specified method ${request.method} is not allowed against ${request.resource}.`,
  );
}

/** The bucket sub-resources served (`?cors`, `?lifecycle`, `?encryption`), by method. */
const CONFIGURATION: Record<string, Partial<Record<string, Operation>>> = {
  cors: {
    GET: op('GetBucketCors', configuration.getBucketCors),
    PUT: op('PutBucketCors', configuration.putBucketCors),
    DELETE: op('DeleteBucketCors', configuration.deleteBucketCors),
  },
  lifecycle: {
    GET: op('GetBucketLifecycleConfiguration', configuration.getBucketLifecycle),
    PUT: op('PutBucketLifecycleConfiguration', configuration.putBucketLifecycle),
    DELETE: op('DeleteBucketLifecycle', configuration.deleteBucketLifecycle),
  },
  encryption: { GET: op('GetBucketEncryption', configuration.getBucketEncryption) },
};

export function route(request: S3Request): Operation {
  const { method, params, headers } = request;
  const unsupported = UNSUPPORTED.find((name) => params.has(name));
  if (unsupported !== undefined) throw notImplemented(`The ${unsupported} sub-resource`);
  const configured = Object.keys(CONFIGURATION).find((name) => params.has(name));
  if (configured !== undefined) {
    if (request.bucket === undefined || request.key !== undefined) throw notImplemented(`The ${configured} sub-resource of an object`);
    const operation = CONFIGURATION[configured]![method];
    if (operation) return operation;
    // The platform keeps every object encrypted at rest; that cannot be changed.
    if (configured === 'encryption') throw notImplemented(`${method} of the encryption sub-resource`);
    throw methodNotAllowed(request);
  }
  if (request.bucket === undefined) {
    if (method === 'GET') return op('ListBuckets', buckets.listBuckets);
    throw methodNotAllowed(request);
  }
  if (request.key === undefined) {
    switch (method) {
      case 'GET':
        if (params.has('location')) return op('GetBucketLocation', buckets.getBucketLocation);
        if (params.has('uploads')) return op('ListMultipartUploads', multipart.listMultipartUploads);
        if (params.has('versions')) return op('ListObjectVersions', buckets.listObjectVersions, true);
        if (params.get('list-type') === '2') return op('ListObjectsV2', buckets.listObjectsV2, true);
        return op('ListObjects', buckets.listObjects, true);
      case 'HEAD':
        return op('HeadBucket', buckets.headBucket, true);
      case 'PUT':
        return op('CreateBucket', buckets.createBucket);
      case 'DELETE':
        return op('DeleteBucket', buckets.deleteBucket);
      case 'POST':
        if (params.has('delete')) return op('DeleteObjects', objects.deleteObjects);
    }
    throw methodNotAllowed(request);
  }
  // Objects here have one version, S3's `null`: naming it is allowed, naming another is not.
  const versionId = params.get('versionId');
  if (versionId !== undefined && versionId !== 'null') {
    throw invalidArgument('Invalid version id specified: objects here have only version null.', 'versionId', versionId);
  }
  const copy = headers.has('x-amz-copy-source');
  switch (method) {
    case 'GET':
      if (params.has('uploadId')) return op('ListParts', multipart.listParts);
      if (params.has('attributes')) return op('GetObjectAttributes', getObjectAttributes, true);
      return op('GetObject', objects.getObject, true);
    case 'HEAD':
      return op('HeadObject', objects.headObject, true);
    case 'PUT':
      if (params.has('partNumber') && params.has('uploadId')) {
        return copy ? op('UploadPartCopy', multipart.uploadPartCopy) : op('UploadPart', multipart.uploadPart);
      }
      return copy ? op('CopyObject', objects.copyObject) : op('PutObject', objects.putObject);
    case 'POST':
      if (params.has('uploads')) return op('CreateMultipartUpload', multipart.createMultipartUpload);
      if (params.has('uploadId')) return op('CompleteMultipartUpload', multipart.completeMultipartUpload);
      break;
    case 'DELETE':
      if (params.has('uploadId')) return op('AbortMultipartUpload', multipart.abortMultipartUpload);
      return op('DeleteObject', objects.deleteObject);
  }
  throw methodNotAllowed(request);
}
