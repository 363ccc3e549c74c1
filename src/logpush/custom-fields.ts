/**
 * The values of a zone's custom log fields for one request, with the limits of the spec: only the
 * first instance of a repeated header (or cookie), values over 8 KB truncated.
 */
import { type CustomFieldConfig, type EdgeRequest, type HeaderLine, type ResponseHead, truncateUtf8 } from '../judge';

/** 8 KB: a longer value is cut to this many bytes of UTF-8. */
export const MAX_CUSTOM_FIELD_BYTES = 8192;

export interface CustomFieldValues {
  RequestHeaders: Record<string, string>;
  ResponseHeaders: Record<string, string>;
  Cookies: Record<string, string>;
  /** Values cut to 8 KB, as `RequestHeaders.<name>`, `ResponseHeaders.<name>`, `Cookies.<name>`. */
  truncated: string[];
}

/**
 * Values of the configured fields that the request (and the response, when there is one to log)
 * carries; absent headers and cookies are left out.
 */
export function customFieldValues(config: CustomFieldConfig, request: EdgeRequest, response: ResponseHead | undefined): CustomFieldValues {
  const values: CustomFieldValues = { RequestHeaders: {}, ResponseHeaders: {}, Cookies: {}, truncated: [] };
  for (const { kind, name } of config.configured) {
    const [group, value] =
      kind === 'request_header'
        ? (['RequestHeaders', firstHeader(request.headers, name)] as const)
        : kind === 'response_header'
          ? (['ResponseHeaders', response ? firstHeader(response.headers, name) : undefined] as const)
          : (['Cookies', request.cookies.find(([cookie]) => cookie === name)?.[1]] as const);
    if (value === undefined) continue;
    const logged = truncateUtf8(value, MAX_CUSTOM_FIELD_BYTES);
    if (logged !== value) values.truncated.push(`${group}.${name}`);
    values[group][name] = logged;
  }
  return values;
}

/** Header names are configured in lower case and match the request's in any case. */
function firstHeader(headers: readonly HeaderLine[], name: string): string | undefined {
  return headers.find(([header]) => header.toLowerCase() === name)?.[1];
}
