import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * SSRF protection for URLs operators configure: custom pickup point providers (decision 0202) and webhook endpoints
 * (decision 0601). A URL must be HTTPS, and every address its
 * host resolves to must be public: no loopback, private, link-local, carrier-grade NAT, multicast, documentation or
 * IPv4-in-IPv6 ranges. The check runs inside the connection's own DNS lookup, so the address connected to is the
 * address checked (no second resolution an attacker's DNS could answer differently). Outside production the sandbox's
 * origin and the loopback origins of `LOCAL_OUTBOUND_ORIGINS` are the exceptions (decision 0609).
 */

export type ResolvedAddress = { address: string; family: 4 | 6 };
/** Resolves a host name to all its addresses; injectable so tests can point a name at 127.0.0.1. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

export type BlockedTargetReason = 'invalid_url' | 'scheme_not_https' | 'credentials_in_url' | 'private_address';

export class BlockedTargetError extends Error {
  override readonly name = 'BlockedTargetError';
  constructor(
    readonly reason: BlockedTargetReason,
    message: string,
  ) {
    super(message);
  }
}

export interface TargetPolicy {
  /**
   * Origins (`http://127.0.0.1:4010`) allowed over plain HTTP and on private addresses: outside production, the
   * sandbox and the loopback origins of `LOCAL_OUTBOUND_ORIGINS`.
   */
  trustedOrigins: readonly string[];
  /** Outside production: a refused loopback URL names the setting that would allow its origin. */
  localOriginsHint?: boolean;
}

// Separate lists: a BlockList holding IPv6 rules also matches IPv4 addresses through their mapped form.
const nonPublicV4 = new BlockList();
const nonPublicV6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  nonPublicV4.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible
  ['::ffff:0:0', 96], // IPv4-mapped: a public host never needs it, and it would smuggle 127.0.0.1 past the v4 rules
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 embeds an IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  nonPublicV6.addSubnet(network, prefix, 'ipv6');

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** 127.0.0.0/8, `::1` and `localhost` (RFC 6761: it resolves to loopback); brackets of an IPv6 host stripped. */
export function isLoopbackHost(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  const family = isIP(host);
  return family === 4 ? loopback.check(host, 'ipv4') : family === 6 && loopback.check(host, 'ipv6');
}

/**
 * `LOCAL_OUTBOUND_ORIGINS`: comma-separated origins on loopback (`http://127.0.0.1:8080,http://localhost:9000`), each
 * returned as the exact origin a URL is compared with. Anything else is refused with the entry named: the setting
 * opens this one door for trying a local provider or receiver, never private networks or other hosts.
 */
export function parseLocalOrigins(value: string): string[] {
  const origins: string[] = [];
  for (const entry of value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(`"${entry}" is not an origin such as http://127.0.0.1:8080`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`"${entry}" is not an origin such as http://127.0.0.1:8080`);
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash)
      throw new Error(`"${entry}" must be an origin (scheme, host, port) without credentials, path or query`);
    if (!isLoopbackHost(url.hostname.replace(/^\[|\]$/g, '')))
      throw new Error(
        `"${entry}" is not on loopback (127.0.0.0/8, [::1] or localhost); other local and private addresses stay refused`,
      );
    if (!origins.includes(url.origin)) origins.push(url.origin);
  }
  return origins;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return family === 4 ? !nonPublicV4.check(address, 'ipv4') : !nonPublicV6.check(address, 'ipv6');
}

function isTrusted(url: URL, policy: TargetPolicy): boolean {
  return policy.trustedOrigins.includes(url.origin);
}

/** What an operator trying a local provider or receiver needs to read when its loopback URL is refused. */
function localHint(url: URL, policy: TargetPolicy): string {
  return policy.localOriginsHint && isLoopbackHost(url.hostname.replace(/^\[|\]$/g, ''))
    ? ` (to try a local endpoint outside production, set LOCAL_OUTBOUND_ORIGINS=${url.origin})`
    : '';
}

/**
 * The checks that need no DNS: a parsable absolute URL, HTTPS (or a trusted origin), no credentials in it, and no
 * literal non-public address. Used when the operator configures the URL and again before every call.
 */
export function checkEndpointUrl(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BlockedTargetError('invalid_url', 'not an absolute URL');
  }
  if (url.username || url.password)
    throw new BlockedTargetError(
      'credentials_in_url',
      'no credentials in the URL (a provider takes them in a custom header; webhooks are signed)',
    );
  if (isTrusted(url, policy)) return url;
  if (url.protocol !== 'https:')
    throw new BlockedTargetError('scheme_not_https', `the URL must use HTTPS${localHint(url, policy)}`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !isPublicAddress(host))
    throw new BlockedTargetError('private_address', `${host} is not a public address${localHint(url, policy)}`);
  return url;
}

/**
 * A `lookup` for node's http(s).request that resolves through `resolve` and refuses the connection when any address
 * of the host is not public (a name with one public and one private address is refused whole).
 */
export function guardedLookup(resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const blocked = addresses.find((a) => !isPublicAddress(a.address));
        if (addresses.length === 0 || blocked) {
          const error = new BlockedTargetError(
            'private_address',
            blocked
              ? `${hostname} resolves to ${blocked.address}, which is not a public address`
              : `${hostname} does not resolve`,
          );
          callback(error, '', 4);
          return;
        }
        const usable = options.family ? addresses.filter((a) => a.family === options.family) : addresses;
        const chosen = usable.length > 0 ? usable : addresses;
        if (options.all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, chosen);
        else callback(null, chosen[0]!.address, chosen[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };
}

/** Whether the call to `url` goes through `guardedLookup` (every origin but a trusted one). */
export function needsGuard(url: URL, policy: TargetPolicy): boolean {
  return !isTrusted(url, policy);
}

/**
 * Outside production the sandbox origin is trusted (plain HTTP, loopback), so the reference provider and the webhook
 * receiver in the sandbox can be configured like real ones, and so are the loopback origins an operator lists in
 * `LOCAL_OUTBOUND_ORIGINS` to try a provider or receiver of their own (decision 0609). Production reaches public HTTPS
 * endpoints only (and refuses to start with `LOCAL_OUTBOUND_ORIGINS`).
 */
export function targetPolicy(config: {
  env: 'development' | 'test' | 'production';
  sandboxUrl: string;
  localOutboundOrigins: readonly string[];
}): TargetPolicy {
  if (config.env === 'production') return { trustedOrigins: [] };
  return {
    trustedOrigins: [new URL(config.sandboxUrl).origin, ...config.localOutboundOrigins],
    localOriginsHint: true,
  };
}

/**
 * Everything `checkEndpointUrl` checks, plus the DNS answer now: every address the host resolves to must be public.
 * For configuration time, so an operator hears at once that a name points inward; the connection's own guarded
 * lookup still checks again at every call (DNS answers change).
 */
export async function checkPublicTarget(raw: string, policy: TargetPolicy, resolve: Resolver): Promise<URL> {
  const url = checkEndpointUrl(raw, policy);
  if (!needsGuard(url, policy)) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return url;
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    throw new BlockedTargetError('private_address', `${host} does not resolve (${(error as Error).message})`);
  }
  const blocked = addresses.find((a) => !isPublicAddress(a.address));
  if (addresses.length === 0) throw new BlockedTargetError('private_address', `${host} does not resolve`);
  if (blocked)
    throw new BlockedTargetError(
      'private_address',
      `${host} resolves to ${blocked.address}, which is not a public address${localHint(url, policy)}`,
    );
  return url;
}
