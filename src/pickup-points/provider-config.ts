import { RESERVED_HEADER_NAMES, type ProviderHeader } from './provider-client';
import { BlockedTargetError, checkEndpointUrl, type TargetPolicy } from '../net/target-guard';

/** An operator's provider setting the service refuses; shown to the operator as one line. */
export class ProviderConfigError extends Error {
  override readonly name = 'ProviderConfigError';
}

/** Becomes `custom:<code>` on the wire: lowercase, starts with a letter. */
export const PROVIDER_CODE = /^[a-z][a-z0-9_]{1,31}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const MAX_HEADERS = 20;
const MAX_HEADER_VALUE = 2_000;

export function checkProviderCode(code: string): string {
  if (!PROVIDER_CODE.test(code))
    throw new ProviderConfigError(
      `code "${code.slice(0, 40)}" must be 2 to 32 lowercase letters, digits or _, starting with a letter`,
    );
  return code;
}

export function checkProviderUrl(url: string, policy: TargetPolicy): string {
  try {
    return checkEndpointUrl(url, policy).toString();
  } catch (error) {
    if (error instanceof BlockedTargetError) throw new ProviderConfigError(`url refused: ${error.message}`);
    throw error;
  }
}

/** `Name: value` as typed on the command line. */
export function parseHeaderArgument(argument: string): ProviderHeader {
  const colon = argument.indexOf(':');
  if (colon <= 0)
    throw new ProviderConfigError(`header "${argument.split(':')[0]!.slice(0, 40)}" must be "Name: value"`);
  return { name: argument.slice(0, colon).trim(), value: argument.slice(colon + 1).trim() };
}

export function checkHeaders(headers: readonly ProviderHeader[]): ProviderHeader[] {
  if (headers.length > MAX_HEADERS) throw new ProviderConfigError(`at most ${MAX_HEADERS} headers`);
  const seen = new Set<string>();
  for (const { name, value } of headers) {
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) throw new ProviderConfigError(`header name "${name.slice(0, 40)}" is not valid`);
    if ((RESERVED_HEADER_NAMES as readonly string[]).includes(lower))
      throw new ProviderConfigError(`header ${name} is set by the service and cannot be configured`);
    if (seen.has(lower)) throw new ProviderConfigError(`header ${name} is given twice`);
    seen.add(lower);
    if (value.length === 0 || value.length > MAX_HEADER_VALUE || /[\r\n\0]/.test(value))
      throw new ProviderConfigError(`header ${name} needs a value of 1 to ${MAX_HEADER_VALUE} characters on one line`);
  }
  return [...headers];
}
