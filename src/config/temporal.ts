import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { duration, invalidConfiguration, type CoreEnv } from './core';

/** The Temporal connection every process that talks to Temporal shares: the API, the worker, labelctl, the setup step. */
export const temporalShape = {
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('shipping-label-api'),
  /** How long Temporal keeps closed workflows' histories; set when the setup step creates the namespace. */
  TEMPORAL_NAMESPACE_RETENTION: duration('7d'),
  // A cluster's TLS and Temporal Cloud's API key, with the names of Temporal's own client environment configuration.
  /** `true` turns TLS on with the system's roots, `false` off; unset: on when any other TLS setting or an API key is. */
  TEMPORAL_TLS: z.enum(['true', 'false']).optional(),
  /** PEM files (or their contents in the `_DATA` twins): the server's CA, and this client's certificate and key (mTLS). */
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_CERT_DATA: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_DATA: z.string().min(1).optional(),
  /** The name the server's certificate is checked against (SNI), when it is not the host of TEMPORAL_ADDRESS. */
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  /** Temporal Cloud API key (sent as `Authorization: Bearer`); turns TLS on unless TEMPORAL_TLS=false. */
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  /**
   * The Temporal Web UI, for the links `labelctl creations` prints; unset: `npm run dev`'s UI outside production, no
   * links in production.
   */
  TEMPORAL_UI_URL: z.string().url().optional(),
};

type TemporalEnv = z.infer<z.ZodObject<typeof temporalShape>> & Pick<CoreEnv, 'NODE_ENV'>;

/** The Web UI `npm run dev` serves (TEMPORAL_UI_PORT's default). */
const DEV_TEMPORAL_UI_URL = 'http://127.0.0.1:8233';

/** TLS towards the Temporal server: the system's roots when empty. */
export interface TemporalTls {
  serverNameOverride?: string;
  serverRootCACertificate?: Buffer;
  clientCertPair?: { crt: Buffer; key: Buffer };
}

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  namespaceRetentionMs: number;
  /** Undefined: plain gRPC (a local server). */
  tls: Readonly<TemporalTls> | undefined;
  apiKey: string | undefined;
  /** Base URL of the Temporal Web UI, without a trailing slash; undefined: none known. */
  webUiUrl: string | undefined;
}

export type TemporalConfig = Readonly<{ temporal: Readonly<TemporalSettings> }>;

/** A PEM from its `_PATH` file or its `_DATA` value; one problem per variable into `problems`. */
function pem(
  e: TemporalEnv,
  name: 'SERVER_CA_CERT' | 'CLIENT_CERT' | 'CLIENT_KEY',
  problems: string[],
): Buffer | undefined {
  const path = e[`TEMPORAL_TLS_${name}_PATH`];
  const data = e[`TEMPORAL_TLS_${name}_DATA`];
  if (path && data) {
    problems.push(`TEMPORAL_TLS_${name}_PATH, TEMPORAL_TLS_${name}_DATA: set one of them, not both`);
    return undefined;
  }
  if (data) return Buffer.from(data);
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (error) {
    problems.push(
      `TEMPORAL_TLS_${name}_PATH: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
    return undefined;
  }
}

/** TLS as Temporal's client environment configuration reads it: explicit TEMPORAL_TLS, else on when anything asks for it. */
function temporalTls(e: TemporalEnv, problems: string[]): TemporalTls | undefined {
  const ca = pem(e, 'SERVER_CA_CERT', problems);
  const crt = pem(e, 'CLIENT_CERT', problems);
  const key = pem(e, 'CLIENT_KEY', problems);
  if (Boolean(crt) !== Boolean(key))
    problems.push('TEMPORAL_TLS_CLIENT_CERT_*, TEMPORAL_TLS_CLIENT_KEY_*: mTLS needs both the certificate and the key');
  const asked = Boolean(ca || crt || key || e.TEMPORAL_TLS_SERVER_NAME || e.TEMPORAL_API_KEY);
  if (e.TEMPORAL_TLS === 'false') {
    if (ca || crt || key || e.TEMPORAL_TLS_SERVER_NAME)
      problems.push('TEMPORAL_TLS: false, but TLS certificates or a server name are set');
    return undefined;
  }
  if (e.TEMPORAL_TLS !== 'true' && !asked) return undefined;
  return Object.freeze({
    ...(e.TEMPORAL_TLS_SERVER_NAME ? { serverNameOverride: e.TEMPORAL_TLS_SERVER_NAME } : {}),
    ...(ca ? { serverRootCACertificate: ca } : {}),
    ...(crt && key ? { clientCertPair: Object.freeze({ crt, key }) } : {}),
  });
}

export function temporalSettings(e: TemporalEnv): TemporalConfig {
  const problems: string[] = [];
  const tls = temporalTls(e, problems);
  if (problems.length) throw invalidConfiguration(problems);
  return {
    temporal: Object.freeze({
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      namespaceRetentionMs: e.TEMPORAL_NAMESPACE_RETENTION,
      tls,
      apiKey: e.TEMPORAL_API_KEY,
      webUiUrl: (e.TEMPORAL_UI_URL ?? (e.NODE_ENV === 'production' ? undefined : DEV_TEMPORAL_UI_URL))?.replace(
        /\/+$/,
        '',
      ),
    }),
  };
}
