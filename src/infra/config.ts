import path from 'node:path';

/** Runtime configuration, read once from the environment and validated before anything starts. */
export interface Config {
  port: number;
  host: string;
  /** Folder of the embedded PGlite database; ignored when databaseUrl is set. */
  dataDir: string;
  /** postgres://... for a real PostgreSQL server; null means embedded PGlite in dataDir. */
  databaseUrl: string | null;
  /** Connections of the PostgreSQL pool (ignored on PGlite, which is one connection). */
  databasePoolSize: number;
  /** redis://... to share rate-limit state between instances; null means in-process. */
  redisUrl: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** How long a verified API key is trusted from memory; also the worst-case revocation latency. */
  authCacheTtlMs: number;
  /** Allow outbound HTTP(S) to loopback (webhooks, studio media). Tests only. */
  allowLoopbackFetch: boolean;
  /** Run pg-boss workers and schedules in this process. */
  runWorkers: boolean;
  /** Public base URL used in manifests and links. */
  publicUrl: string | null;
  /** A connection idle this long (no bytes either way) is closed. */
  connectionTimeoutMs: number;
  /** A request whose headers and body have not all arrived this long after it started is answered 408 and closed. */
  requestTimeoutMs: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw;
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = (env.LOG_LEVEL?.trim() || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const host = env.HOST?.trim() || '0.0.0.0';
  if (/\s/.test(host)) throw new ConfigError(`HOST must be a host name or address, got "${host}"`);
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host,
    dataDir: path.resolve(env.DATA_DIR?.trim() || './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 20, 1, 1000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    logLevel,
    authCacheTtlMs: integer(env, 'AUTH_CACHE_TTL_MS', 5000, 0, 300_000),
    allowLoopbackFetch: boolean(env, 'ALLOW_LOOPBACK_FETCH', false),
    runWorkers: boolean(env, 'RUN_WORKERS', true),
    publicUrl: url(env, 'PUBLIC_URL', ['http:', 'https:']),
    connectionTimeoutMs: integer(env, 'CONNECTION_TIMEOUT_MS', 30_000, 100, 600_000),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
  };
}
