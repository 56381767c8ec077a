// Types of scripts/lib/temporal-cluster.mjs for the TypeScript that imports it (the creation benchmark).
export const TEMPORAL_SERVER_VERSION: string;
export const TEMPORAL_UI_VERSION: string;
export interface PostgresEndpoint {
  host: string;
  port: number;
  user: string;
  password: string;
}
export interface TemporalDatabases {
  temporal: string;
  visibility: string;
}
export interface TemporalServerPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
  metrics: number;
}
export function findTemporalServer(): { server: string; sqlTool: string } | null;
export function findTemporalUi(): { ui: string } | null;
export function postgresEndpoint(url: string): PostgresEndpoint;
export function setUpTemporalSchemas(options: {
  sqlTool: string;
  postgres: PostgresEndpoint;
  databases: TemporalDatabases;
}): void;
export function freeServicePort(avoid?: number[]): Promise<number>;
export function temporalServerConfig(options: {
  postgres: PostgresEndpoint;
  databases: TemporalDatabases;
  ports: TemporalServerPorts;
  dynamicConfigFile: string;
  logLevel?: string;
}): string;
export function temporalDynamicConfig(): string;
export function temporalServerFiles(options: { dir: string; config: string; dynamicConfig: string }): string[];
export function temporalUiFiles(options: {
  dir: string;
  frontendPort: number;
  port: number;
  namespace: string;
}): string[];
