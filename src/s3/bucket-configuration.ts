/**
 * A bucket's configuration through S3's sub-resources: `?cors` and `?lifecycle` read and write
 * the catalogue's CORS and lifecycle rules (the ones the management API and wrangler set: a rule
 * set on one side shows on the other at once); `?encryption` answers what the platform does, every
 * object encrypted at rest with AES-256 (SSE-S3), which cannot be changed.
 */
import { randomUUID } from 'node:crypto';
import {
  corsRulesProblem,
  lifecycleRulesProblem,
  type CorsMethod,
  type CorsRule,
  type LifecycleAge,
  type LifecycleDate,
  type LifecycleRule,
  type S3RuleForm,
} from '../bucket';
import { bodyOf, fromRequest, MAX_DOCUMENT_BYTES, openBucket, xmlResponse, type S3Context, type S3Response } from './context';
import { invalidArgument, invalidRequest, malformedXml, S3Error } from './errors';
import { readSmallBody } from './payload';
import { parseXmlBody, type ParsedElement, type ParsedValue } from './xml';

const CORS_METHODS: readonly CorsMethod[] = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'];
/** As S3 caps them. */
const MAX_CORS_RULES = 100;
const MAX_LIFECYCLE_RULES = 1000;
const DAY_SECONDS = 24 * 60 * 60;

const accountOf = (context: S3Context) => context.catalogue.account();

async function documentOf(context: S3Context, root: string): Promise<ParsedElement> {
  return parseXmlBody(await readSmallBody(bodyOf(context), MAX_DOCUMENT_BYTES), root);
}

/** The element's repeated values as a list (one value, several, or none). */
const all = (value: ParsedValue | ParsedValue[] | undefined): ParsedValue[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];
const texts = (value: ParsedValue | ParsedValue[] | undefined, where: string): string[] =>
  all(value).map((item) => {
    if (typeof item !== 'string') throw malformedXml(`${where} must hold text.`);
    return item.trim();
  });
const element = (value: ParsedValue | ParsedValue[] | undefined, where: string): ParsedElement | undefined => {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw malformedXml(`${where} may appear once.`);
  if (typeof value === 'string') {
    if (value.trim() === '') return {};
    throw malformedXml(`${where} must hold elements, not text.`);
  }
  return value;
};
const text = (value: ParsedValue | ParsedValue[] | undefined, where: string): string | undefined => {
  const values = texts(value, where);
  if (values.length > 1) throw malformedXml(`${where} may appear once.`);
  return values[0];
};

// ---- CORS ------------------------------------------------------------------------------------

export async function getBucketCors(context: S3Context): Promise<S3Response> {
  const name = context.request.bucket!;
  const rules = await accountOf(context).cors(name);
  if (rules === null) {
    throw new S3Error('NoSuchCORSConfiguration', 404, 'The CORS configuration does not exist.');
  }
  return xmlResponse('CORSConfiguration', {
    CORSRule: rules.map((rule) => ({
      ID: rule.id,
      AllowedMethod: rule.allowed.methods,
      AllowedOrigin: rule.allowed.origins,
      AllowedHeader: rule.allowed.headers,
      ExposeHeader: rule.exposeHeaders,
      MaxAgeSeconds: rule.maxAgeSeconds,
    })),
  });
}

/** A CORSConfiguration document as the catalogue's rules. */
export function corsRulesOf(document: ParsedElement): CorsRule[] {
  const rules = all(document.CORSRule);
  if (rules.length === 0) throw malformedXml('a CORSConfiguration needs at least one CORSRule.');
  if (rules.length > MAX_CORS_RULES) {
    throw invalidArgument(`A CORS configuration holds at most ${MAX_CORS_RULES} rules, not ${rules.length}.`, 'CORSRule', String(rules.length));
  }
  const parsed = rules.map((value, index) => {
    const where = `CORSRule ${index + 1}`;
    const rule = element(value, where)!;
    const methods = texts(rule.AllowedMethod, `${where}'s AllowedMethod`);
    const origins = texts(rule.AllowedOrigin, `${where}'s AllowedOrigin`);
    if (methods.length === 0 || origins.length === 0) {
      throw malformedXml(`${where} needs at least one AllowedMethod and one AllowedOrigin.`);
    }
    for (const method of methods) {
      if (!(CORS_METHODS as readonly string[]).includes(method)) {
        throw invalidRequest(`Found unsupported HTTP method in CORS config. Unsupported method is ${method}; use ${CORS_METHODS.join(', ')}.`);
      }
    }
    const headers = texts(rule.AllowedHeader, `${where}'s AllowedHeader`);
    if (headers.some((header) => header === '')) throw invalidArgument(`${where} has an empty AllowedHeader.`, 'AllowedHeader', '');
    const expose = texts(rule.ExposeHeader, `${where}'s ExposeHeader`);
    const id = text(rule.ID, `${where}'s ID`);
    const maxAge = text(rule.MaxAgeSeconds, `${where}'s MaxAgeSeconds`);
    if (maxAge !== undefined && !/^\d+$/.test(maxAge)) {
      throw invalidArgument(`${where}'s MaxAgeSeconds must be a whole number of seconds.`, 'MaxAgeSeconds', maxAge);
    }
    const parsedRule: CorsRule = { allowed: { methods: methods as CorsMethod[], origins } };
    if (id !== undefined && id !== '') parsedRule.id = id;
    if (headers.length > 0) parsedRule.allowed.headers = headers;
    if (expose.length > 0) parsedRule.exposeHeaders = expose;
    if (maxAge !== undefined) parsedRule.maxAgeSeconds = Number(maxAge);
    return parsedRule;
  });
  const problem = corsRulesProblem(parsed);
  if (problem !== null) throw invalidArgument(`Invalid CORS configuration: ${problem}.`, 'AllowedOrigin', '');
  return parsed;
}

export async function putBucketCors(context: S3Context): Promise<S3Response> {
  const name = context.request.bucket!;
  await openBucket(context);
  const rules = corsRulesOf(await documentOf(context, 'CORSConfiguration'));
  await accountOf(context).setCors(name, rules);
  return { status: 200 };
}

export async function deleteBucketCors(context: S3Context): Promise<S3Response> {
  await accountOf(context).setCors(context.request.bucket!, null);
  return { status: 204 };
}

// ---- lifecycle -------------------------------------------------------------------------------

/** Ages are kept in seconds; S3 speaks whole days (an age set otherwise through the API is rounded up). */
const days = (age: LifecycleAge) => Math.ceil(age.maxAge / DAY_SECONDS);
/** As S3 limits rule ids. */
const MAX_RULE_ID = 255;

function conditionXml(condition: LifecycleAge | LifecycleDate) {
  return condition.type === 'Age' ? { Days: days(condition) } : { Date: new Date(condition.date).toISOString() };
}

/** Where a rule's prefix is written: as S3 was given it, or (a rule set through the API) in a `Filter`. */
function scopeXml(rule: LifecycleRule) {
  const prefix = rule.conditions.prefix;
  switch (rule.s3?.scope) {
    case 'Prefix':
      return { Prefix: prefix };
    case 'And':
      return { Filter: { And: { Prefix: prefix } } };
    default:
      return { Filter: prefix === '' && rule.s3 ? {} : { Prefix: prefix } };
  }
}

export async function getBucketLifecycle(context: S3Context): Promise<S3Response> {
  const rules = await accountOf(context).lifecycle(context.request.bucket!);
  if (rules.length === 0) {
    throw new S3Error('NoSuchLifecycleConfiguration', 404, 'The lifecycle configuration does not exist.');
  }
  return xmlResponse('LifecycleConfiguration', {
    Rule: rules.map((rule) => {
      const s3 = rule.s3;
      const expiration = rule.deleteObjectsTransition
        ? conditionXml(rule.deleteObjectsTransition.condition)
        : s3?.expiredObjectDeleteMarker !== undefined
          ? { ExpiredObjectDeleteMarker: s3.expiredObjectDeleteMarker }
          : undefined;
      const noncurrent = s3?.noncurrentVersionExpiration;
      // In the order S3's schema lists a rule's elements.
      return {
        Expiration: expiration,
        ID: rule.id,
        ...scopeXml(rule),
        Status: rule.enabled ? 'Enabled' : 'Disabled',
        Transition: rule.storageClassTransitions?.map((transition) => ({
          ...conditionXml(transition.condition),
          StorageClass: 'STANDARD_IA',
        })),
        NoncurrentVersionTransition: s3?.noncurrentVersionTransitions?.map((transition) => ({
          NoncurrentDays: transition.noncurrentDays,
          StorageClass: transition.storageClass,
          NewerNoncurrentVersions: transition.newerNoncurrentVersions,
        })),
        NoncurrentVersionExpiration: noncurrent
          ? { NoncurrentDays: noncurrent.noncurrentDays, NewerNoncurrentVersions: noncurrent.newerNoncurrentVersions }
          : undefined,
        AbortIncompleteMultipartUpload: rule.abortMultipartUploadsTransition
          ? { DaysAfterInitiation: days(rule.abortMultipartUploadsTransition.condition) }
          : undefined,
      };
    }),
  });
}

/** Filters a rule's scope may hold that this endpoint cannot apply: objects here have no tags, and no rule filters by size. */
const UNSUPPORTED_FILTERS = ['ObjectSizeGreaterThan', 'ObjectSizeLessThan', 'Tag'];

function positiveDays(value: string | undefined, where: string): number {
  if (value === undefined || !/^\d+$/.test(value) || Number(value) < 1) {
    throw invalidArgument(`${where} must be a positive whole number of days.`, where, value ?? '');
  }
  return Number(value);
}

function wholeNumber(value: string | undefined, where: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw invalidArgument(`${where} must be a whole number.`, where, value);
  return Number(value);
}

/** `Days` or `Date` of an Expiration or a Transition. */
function conditionOf(action: ParsedElement, where: string): LifecycleAge | LifecycleDate {
  const daysText = text(action.Days, `${where}'s Days`);
  const date = text(action.Date, `${where}'s Date`);
  if ((daysText === undefined) === (date === undefined)) {
    throw invalidArgument(`${where} needs one of Days or Date.`, where, '');
  }
  if (date !== undefined) {
    const parsed = Date.parse(date);
    if (Number.isNaN(parsed) || new Date(parsed).toISOString().slice(11) !== '00:00:00.000Z') {
      throw invalidArgument(`${where}'s Date must be midnight UTC in ISO 8601 (2026-01-01T00:00:00Z).`, 'Date', date);
    }
    return { type: 'Date', date: new Date(parsed).toISOString() };
  }
  return { type: 'Age', maxAge: positiveDays(daysText, `${where}'s Days`) * DAY_SECONDS };
}

/**
 * The prefix of a rule and where it was written: `Filter` with a `Prefix` (or empty: every key),
 * a `Filter` with an `And` holding a `Prefix`, or the older top-level `Prefix`; never both forms.
 */
function scopeOf(rule: ParsedElement, where: string): { prefix: string; scope: S3RuleForm['scope'] } {
  const filter = element(rule.Filter, `${where}'s Filter`);
  const topPrefix = text(rule.Prefix, `${where}'s Prefix`);
  if (filter === undefined) return { prefix: topPrefix ?? '', scope: 'Prefix' };
  if (topPrefix !== undefined) throw malformedXml(`${where} has both a Prefix and a Filter; give one.`);
  const and = element(filter.And, `${where}'s Filter And`);
  const scope = and ?? filter;
  for (const name of UNSUPPORTED_FILTERS) {
    if (scope[name] !== undefined) {
      throw new S3Error('NotImplemented', 501, `${where}: lifecycle filters by ${name} are not implemented (objects here have no tags, and no rule filters by size).`);
    }
  }
  return { prefix: text(scope.Prefix, `${where}'s Filter Prefix`) ?? '', scope: and ? 'And' : 'Filter' };
}

/** A Transition's or NoncurrentVersionTransition's storage class: the platform's one other class. */
function transitionClass(transition: ParsedElement, where: string): 'STANDARD_IA' {
  const storageClass = text(transition.StorageClass, `${where}'s StorageClass`);
  if (storageClass !== 'STANDARD_IA') {
    throw new S3Error(
      'InvalidStorageClass',
      400,
      `${where}: the storage class ${storageClass ?? '(none)'} is not one of this endpoint's; transitions go to STANDARD_IA.`,
    );
  }
  return storageClass;
}

/** The elements of a rule that act on object versions (see S3RuleForm): checked, kept to be read back. */
function versionActionsOf(rule: ParsedElement, expiration: ParsedElement | undefined, where: string): Omit<S3RuleForm, 'scope'> {
  const form: Omit<S3RuleForm, 'scope'> = {};
  const marker = expiration && text(expiration.ExpiredObjectDeleteMarker, `${where}'s ExpiredObjectDeleteMarker`);
  if (marker !== undefined) {
    if (marker !== 'true' && marker !== 'false') throw malformedXml(`${where}'s ExpiredObjectDeleteMarker must be true or false.`);
    if (expiration!.Days !== undefined || expiration!.Date !== undefined) {
      throw invalidArgument(`${where}: ExpiredObjectDeleteMarker cannot be specified with Days or Date in a Lifecycle Expiration Policy.`, 'ExpiredObjectDeleteMarker', marker);
    }
    form.expiredObjectDeleteMarker = marker === 'true';
  }
  const noncurrent = element(rule.NoncurrentVersionExpiration, `${where}'s NoncurrentVersionExpiration`);
  if (noncurrent) {
    const noncurrentDays = wholeNumber(text(noncurrent.NoncurrentDays, 'NoncurrentDays'), `${where}'s NoncurrentDays`);
    const newer = wholeNumber(text(noncurrent.NewerNoncurrentVersions, 'NewerNoncurrentVersions'), `${where}'s NewerNoncurrentVersions`);
    if (noncurrentDays === undefined && newer === undefined) throw malformedXml(`${where}'s NoncurrentVersionExpiration needs NoncurrentDays.`);
    if (noncurrentDays !== undefined && noncurrentDays < 1) throw invalidArgument(`${where}'s NoncurrentDays must be a positive whole number of days.`, 'NoncurrentDays', String(noncurrentDays));
    form.noncurrentVersionExpiration = {
      ...(noncurrentDays === undefined ? {} : { noncurrentDays }),
      ...(newer === undefined ? {} : { newerNoncurrentVersions: newer }),
    };
  }
  const transitions = all(rule.NoncurrentVersionTransition).map((item, at) => {
    const transitionWhere = `${where}'s NoncurrentVersionTransition ${at + 1}`;
    const transition = element(item, transitionWhere)!;
    const noncurrentDays = wholeNumber(text(transition.NoncurrentDays, 'NoncurrentDays'), `${transitionWhere}'s NoncurrentDays`);
    if (noncurrentDays === undefined) throw malformedXml(`${transitionWhere} needs NoncurrentDays.`);
    const newer = wholeNumber(text(transition.NewerNoncurrentVersions, 'NewerNoncurrentVersions'), `${transitionWhere}'s NewerNoncurrentVersions`);
    return { noncurrentDays, ...(newer === undefined ? {} : { newerNoncurrentVersions: newer }), storageClass: transitionClass(transition, transitionWhere) };
  });
  if (transitions.length > 0) form.noncurrentVersionTransitions = transitions;
  return form;
}

/** A LifecycleConfiguration document as the catalogue's rules. */
export function lifecycleRulesOf(document: ParsedElement): LifecycleRule[] {
  const rules = all(document.Rule);
  if (rules.length === 0) throw malformedXml('a LifecycleConfiguration needs at least one Rule.');
  if (rules.length > MAX_LIFECYCLE_RULES) {
    throw invalidArgument(`A lifecycle configuration holds at most ${MAX_LIFECYCLE_RULES} rules, not ${rules.length}.`, 'Rule', String(rules.length));
  }
  const parsed = rules.map((value, index) => {
    const where = `Rule ${index + 1}`;
    const rule = element(value, where)!;
    const status = text(rule.Status, `${where}'s Status`);
    if (status !== 'Enabled' && status !== 'Disabled') throw malformedXml(`${where}'s Status must be Enabled or Disabled.`);
    const id = text(rule.ID, `${where}'s ID`);
    if (id !== undefined && id.length > MAX_RULE_ID) {
      throw invalidArgument(`${where}'s ID is ${id.length} characters long; a rule ID has at most ${MAX_RULE_ID}.`, 'ID', `${id.slice(0, 32)}...`);
    }
    const { prefix, scope } = scopeOf(rule, where);
    const parsedRule: LifecycleRule = { id: id || randomUUID(), enabled: status === 'Enabled', conditions: { prefix } };
    const expiration = element(rule.Expiration, `${where}'s Expiration`);
    const versions = versionActionsOf(rule, expiration, where);
    if (expiration && versions.expiredObjectDeleteMarker === undefined) {
      parsedRule.deleteObjectsTransition = { condition: conditionOf(expiration, `${where}'s Expiration`) };
    }
    const abort = element(rule.AbortIncompleteMultipartUpload, `${where}'s AbortIncompleteMultipartUpload`);
    if (abort) {
      const after = positiveDays(text(abort.DaysAfterInitiation, 'DaysAfterInitiation'), 'DaysAfterInitiation');
      parsedRule.abortMultipartUploadsTransition = { condition: { type: 'Age', maxAge: after * DAY_SECONDS } };
    }
    const transitions = all(rule.Transition).map((item, at) => {
      const transitionWhere = `${where}'s Transition ${at + 1}`;
      const transition = element(item, transitionWhere)!;
      transitionClass(transition, transitionWhere);
      return { condition: conditionOf(transition, transitionWhere), storageClass: 'InfrequentAccess' as const };
    });
    if (transitions.length > 0) parsedRule.storageClassTransitions = transitions;
    parsedRule.s3 = { scope, ...versions };
    return parsedRule;
  });
  const problem = lifecycleRulesProblem(parsed);
  if (problem !== null) throw invalidArgument(`Invalid lifecycle configuration: ${problem}.`, 'Rule', '');
  return parsed;
}

export async function putBucketLifecycle(context: S3Context): Promise<S3Response> {
  const name = context.request.bucket!;
  await openBucket(context);
  const rules = lifecycleRulesOf(await documentOf(context, 'LifecycleConfiguration'));
  await fromRequest(() => accountOf(context).setLifecycle(name, rules));
  context.expirations.forget(name);
  return { status: 200 };
}

/** Removes every rule, the default upload-abort rule included (as S3 removes the whole configuration). */
export async function deleteBucketLifecycle(context: S3Context): Promise<S3Response> {
  await accountOf(context).setLifecycle(context.request.bucket!, []);
  context.expirations.forget(context.request.bucket!);
  return { status: 204 };
}

// ---- encryption ------------------------------------------------------------------------------

export async function getBucketEncryption(context: S3Context): Promise<S3Response> {
  await openBucket(context);
  return xmlResponse('ServerSideEncryptionConfiguration', {
    Rule: { ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' }, BucketKeyEnabled: false },
  });
}
