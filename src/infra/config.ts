import { isIP } from 'node:net';
import path from 'node:path';
import { parseKeyRing } from './crypto/keyring.ts';
import { PLATFORMS, type Platform } from '../core/catalog.ts';
import { isCalendarDay } from '../core/days.ts';

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
  scoreCacheTtlMs: number;
  scoreCacheEntries: number;
  exportCacheTtlMs: number;
  exportCacheMb: number;
  /** Allow outbound HTTP(S) to loopback (webhooks, studio media). Tests only. */
  allowLoopbackFetch: boolean;
  /** Run pg-boss workers and schedules in this process. */
  runWorkers: boolean;
  /** Public base URL used in manifests and links. */
  publicUrl: string | null;
  /**
   * TRUST_PROXY: addresses or CIDR ranges of the load balancers in front; their X-Forwarded-For names
   * the client address (per-address limits). Null: the socket's peer is the client.
   */
  trustProxy: string[] | null;
  /** A connection idle this long (no bytes either way) is closed. */
  connectionTimeoutMs: number;
  /** A request whose headers and body have not all arrived this long after it started is answered 408 and closed. */
  requestTimeoutMs: number;
  shutdownDrainMs: number;
  /** First period end published under TACSI methodology tacsi-m2; earlier periods are (and stay) tacsi-m1. */
  tacsiM2From: string;
  /** Port of the separate Prometheus listener (0 = any free port); null = no metrics listener. */
  metricsPort: number | null;
  /** Bind address of the metrics listener: loopback unless opened on purpose. */
  metricsHost: string;
  /** Studio media fetches (image/video URLs) per workspace per hour; 0 = no budget. */
  studioMediaFetchesPerHour: number;
  /** AUDIT_LOG_RETENTION_DAYS: audit-log entries older than this are deleted by the retention job. */
  auditLogRetentionDays: number;
  /** ENCRYPTION_KEYS (`kid:base64,...`, first seals), validated; null = the key file in dataDir. */
  encryptionKeys: string | null;
  /** Unix socket the running service serves admin CLI commands on (0600); null: none. */
  adminSocket: string | null;
  /**
   * SIMULATOR_URL: the platform simulator (`brandhealth simulator`); when set, every platform's OAuth
   * and API endpoints default to it. null: the real platforms' endpoints.
   */
  simulatorUrl: string | null;
  /** Per-platform OAuth client and endpoint overrides (PLATFORM_<NAME>_*); null fields take the defaults. */
  platformOAuth: Record<Platform, PlatformOAuthOverrides>;
  /** Scheduled platform sync (docs/ingestion.md "Scheduled sync"). */
  sync: SyncConfig;
  /** Outgoing email (docs/operations.md "Email"). */
  mail: MailConfig;
}

export interface MailConfig {
  /** SMTP_URL: `smtp://` or `smtps://` with optional `user:password@`; null writes messages to the outbox. */
  smtpUrl: string | null;
  /** MAIL_FROM: the sender of every message, `Name <address>` or an address. */
  from: string;
  /** MAIL_OUTBOX_DIR: where messages go (as .eml files) when SMTP_URL is unset. */
  outboxDir: string;
}

export interface SyncConfig {
  /** SYNC_INTERVAL_MINUTES: how often each connection is synced (default 1440, daily), spread over it. */
  intervalMinutes: number;
  /** SYNC_CONCURRENCY: syncs running at once per platform in one instance (default 4). */
  concurrency: number;
  /** SYNC_ON_DEMAND_COOLDOWN_SECONDS: the least time between two on-demand syncs of a connection (default 300). */
  onDemandCooldownSeconds: number;
}

export interface PlatformOAuthOverrides {
  clientId: string | null;
  clientSecret: string | null;
  /** Space- or comma-separated in the environment. */
  scopes: string[] | null;
  authorizeUrl: string | null;
  tokenUrl: string | null;
  revokeUrl: string | null;
  /** One base URL for all of the platform's APIs (`<url>/<api name>`), e.g. a proxy. */
  apiUrl: string | null;
  /** Where the platform redirects after consent; default PUBLIC_URL/v1/platforms/<platform>/callback. */
  redirectUri: string | null;
}

/** Default TACSI cut-over: the first period ending on or after this day is published under tacsi-m2. */
export const DEFAULT_TACSI_M2_FROM = '2026-11-23';

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

function date(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!isCalendarDay(raw)) throw new ConfigError(`${name} must be a date YYYY-MM-DD, got "${raw}"`);
  return raw;
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

/** `Name <local@domain>` or `local@domain`, one address, no line breaks (it becomes a header). */
function mailFrom(env: Env): string {
  const raw = env.MAIL_FROM?.trim() || 'Brand Health <no-reply@localhost>';
  const address = /<([^<>]+)>$/.exec(raw)?.[1] ?? raw;
  if (/[\r\n]/.test(raw) || !/^[^\s@<>,]+@[^\s@<>,]+$/.test(address)) {
    throw new ConfigError(`MAIL_FROM must be an address or "Name <address>", got "${raw}"`);
  }
  return raw;
}

function encryptionKeys(env: Env): string | null {
  const raw = env.ENCRYPTION_KEYS?.trim();
  if (!raw) return null;
  try {
    parseKeyRing(raw);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return raw;
}

function proxies(env: Env, name: string): string[] | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  const list = raw.split(',').map((p) => p.trim());
  for (const entry of list) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    const validBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (!family || !validBits || extra !== undefined)
      throw new ConfigError(`${name} must list IP addresses or CIDR ranges, got "${entry}"`);
  }
  return list;
}

function hostName(env: Env, name: string, fallback: string): string {
  const host = env[name]?.trim() || fallback;
  if (/\s/.test(host)) throw new ConfigError(`${name} must be a host name or address, got "${host}"`);
  return host;
}

function platformOAuth(env: Env): Record<Platform, PlatformOAuthOverrides> {
  const out = {} as Record<Platform, PlatformOAuthOverrides>;
  for (const platform of PLATFORMS) {
    const p = `PLATFORM_${platform.toUpperCase()}_`;
    const scopes = env[`${p}SCOPES`]?.trim();
    out[platform] = {
      clientId: env[`${p}CLIENT_ID`]?.trim() || null,
      clientSecret: env[`${p}CLIENT_SECRET`]?.trim() || null,
      scopes: scopes ? scopes.split(/[\s,]+/).filter(Boolean) : null,
      authorizeUrl: url(env, `${p}AUTHORIZE_URL`, ['http:', 'https:']),
      tokenUrl: url(env, `${p}TOKEN_URL`, ['http:', 'https:']),
      revokeUrl: url(env, `${p}REVOKE_URL`, ['http:', 'https:']),
      apiUrl: url(env, `${p}API_URL`, ['http:', 'https:']),
      redirectUri: url(env, `${p}REDIRECT_URI`, ['http:', 'https:']),
    };
  }
  return out;
}

/**
 * One configuration variable: where it goes in Config, what it means, its default and range as
 * documented, and how it is read. CONFIG_OPTIONS is the single definition: loadConfig reads the
 * environment through it and the README's configuration table is generated from it
 * (`node scripts/config-table.ts`; test/unit/config-docs.test.ts checks the README is current).
 */
export interface ConfigOption<K extends keyof Config = keyof Config> {
  env: string;
  key: K;
  /** The default as documented (a value, or how it is derived). */
  default: string;
  meaning: string;
  /** Accepted values beyond the meaning, as documented (integers: min-max). */
  range?: string;
  /**
   * For a Config key that groups several variables (`sync`): the field this variable fills; `read`
   * then returns just that field, merged into the group by loadConfig.
   */
  field?: string;
  read: (env: Env) => Config[K];
}

function option<K extends keyof Config>(o: ConfigOption<K>): ConfigOption<K> {
  return o;
}

/** An integer variable filling one field of a grouped Config key. */
function integerField<K extends 'sync', F extends keyof Config[K] & string>(
  env: string,
  key: K,
  field: F,
  fallback: number,
  [min, max]: [number, number],
  meaning: string,
): ConfigOption<K> {
  return {
    env,
    key,
    field,
    default: `\`${fallback}\``,
    meaning,
    range: `${min}-${max}`,
    read: (e) => ({ [field]: integer(e, env, fallback, min, max) }) as unknown as Config[K],
  };
}

function integerOption<K extends keyof Config>(
  env: string,
  key: K,
  fallback: number,
  [min, max]: [number, number],
  meaning: string,
): ConfigOption<K> {
  return {
    env,
    key,
    default: `\`${fallback}\``,
    meaning,
    range: `${min}-${max}`,
    read: (e) => integer(e, env, fallback, min, max) as Config[K],
  };
}

const dataDirOf = (env: Env) => path.resolve(env.DATA_DIR?.trim() || './data');

export const CONFIG_OPTIONS: readonly ConfigOption[] = [
  integerOption('PORT', 'port', 8080, [0, 65535], 'HTTP port'),
  option({
    env: 'HOST',
    key: 'host',
    default: '`0.0.0.0`',
    meaning: 'bind address',
    read: (e) => hostName(e, 'HOST', '0.0.0.0'),
  }),
  option({
    env: 'DATA_DIR',
    key: 'dataDir',
    default: '`./data`',
    meaning: 'folder of the embedded PGlite database (used when `DATABASE_URL` is unset)',
    read: dataDirOf,
  }),
  option({
    env: 'DATABASE_URL',
    key: 'databaseUrl',
    default: '—',
    meaning: '`postgres://user@host:5432/db`: run on a PostgreSQL server instead of PGlite',
    read: (e) => url(e, 'DATABASE_URL', ['postgres:', 'postgresql:']),
  }),
  integerOption(
    'DATABASE_POOL_SIZE',
    'databasePoolSize',
    20,
    [1, 1000],
    'connections of the PostgreSQL pool (HTTP requests and audit jobs share it; ignored on PGlite)',
  ),
  option({
    env: 'REDIS_URL',
    key: 'redisUrl',
    default: '—',
    meaning: '`redis://host:6379`: share rate-limit counters between instances (in-process otherwise)',
    read: (e) => url(e, 'REDIS_URL', ['redis:', 'rediss:']),
  }),
  option({
    env: 'LOG_LEVEL',
    key: 'logLevel',
    default: '`info`',
    meaning: 'log verbosity',
    range: LOG_LEVELS.map((l) => `\`${l}\``).join(', '),
    read: (e) => {
      const logLevel = (e.LOG_LEVEL?.trim() || 'info') as Config['logLevel'];
      if (!LOG_LEVELS.includes(logLevel)) {
        throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${e.LOG_LEVEL}"`);
      }
      return logLevel;
    },
  }),
  integerOption(
    'AUTH_CACHE_TTL_MS',
    'authCacheTtlMs',
    5000,
    [0, 300_000],
    'how long a verified key is trusted from memory (= worst-case revocation delay)',
  ),
  integerOption(
    'SCORE_CACHE_TTL_MS',
    'scoreCacheTtlMs',
    60_000,
    [0, 3_600_000],
    'GET /v1/score answers kept in memory at most this long (a safety net: changes invalidate them at once through NOTIFY); 0 turns the cache off',
  ),
  integerOption(
    'SCORE_CACHE_ENTRIES',
    'scoreCacheEntries',
    50_000,
    [1, 10_000_000],
    'GET /v1/score answers kept in memory at most (about 1 KB each); the oldest go first',
  ),
  integerOption(
    'EXPORT_CACHE_TTL_MS',
    'exportCacheTtlMs',
    300_000,
    [0, 3_600_000],
    'GET /v1/export/scores pages kept in memory at most this long (a safety net: score-log and workspace changes invalidate them at once through NOTIFY); 0 turns the cache off',
  ),
  integerOption(
    'EXPORT_CACHE_MB',
    'exportCacheMb',
    64,
    [1, 65_536],
    'memory for cached GET /v1/export/scores pages, in MB (a 1,000-row page is about 265 KB); the oldest agencies go first',
  ),
  option({
    env: 'RUN_WORKERS',
    key: 'runWorkers',
    default: '`true`',
    meaning: 'run background jobs (audits, webhook delivery, campaign phases, TACSI publication) here',
    read: (e) => boolean(e, 'RUN_WORKERS', true),
  }),
  option({
    env: 'PUBLIC_URL',
    key: 'publicUrl',
    default: '—',
    meaning:
      'the public base URL: the OAuth redirect URI (`<PUBLIC_URL>/v1/platforms/<platform>/callback`; connecting a platform without it works only on loopback), the origin and relying-party id (its host name) passkeys are bound to (without it passkeys work only on loopback), and the sandbox manifest',
    read: (e) => url(e, 'PUBLIC_URL', ['http:', 'https:']),
  }),
  option({
    env: 'TRUST_PROXY',
    key: 'trustProxy',
    default: '—',
    meaning:
      'comma-separated addresses or CIDR ranges of the load balancers in front (e.g. `10.0.0.0/8`): the client address (per-address limits, logs) is then read from their `X-Forwarded-For`; unset, the connecting peer is the client',
    read: (e) => proxies(e, 'TRUST_PROXY'),
  }),
  option({
    env: 'ALLOW_LOOPBACK_FETCH',
    key: 'allowLoopbackFetch',
    default: '`false`',
    meaning:
      'tests and the local sandbox (`npm run demo` sets it) only: webhooks, alert Slack URLs, studio media and single sign-on providers may reach loopback addresses, webhooks and issuers over plain http too (private ranges stay refused); never on a service with real tenants',
    read: (e) => boolean(e, 'ALLOW_LOOPBACK_FETCH', false),
  }),
  integerOption(
    'CONNECTION_TIMEOUT_MS',
    'connectionTimeoutMs',
    30_000,
    [100, 600_000],
    'a client connection idle this long is closed',
  ),
  integerOption(
    'REQUEST_TIMEOUT_MS',
    'requestTimeoutMs',
    30_000,
    [100, 600_000],
    'headers not received this long after the request began: 408; a body not received this long after its headers: closed',
  ),
  integerOption(
    'SHUTDOWN_DRAIN_MS',
    'shutdownDrainMs',
    0,
    [0, 60_000],
    'on SIGTERM, keep serving this long with /readyz answering 503 and keep-alive connections closed after each response, then close: behind a load balancer, set above its health-check interval × fall count',
  ),
  option({
    env: 'TACSI_M2_FROM',
    key: 'tacsiM2From',
    default: `\`${DEFAULT_TACSI_M2_FROM}\``,
    meaning:
      'TACSI cut-over: periods ending on or after this date are published under methodology `tacsi-m2` (docs/privacy.md); earlier ones stay `tacsi-m1`',
    range: 'a date YYYY-MM-DD',
    read: (e) => date(e, 'TACSI_M2_FROM', DEFAULT_TACSI_M2_FROM),
  }),
  option({
    env: 'ENCRYPTION_KEYS',
    key: 'encryptionKeys',
    default: 'generated',
    meaning:
      '`kid:base64,...` key ring for secrets at rest (first seals); else `DATA_DIR/encryption.key` (docs/operations.md)',
    read: encryptionKeys,
  }),
  option({
    env: 'METRICS_PORT',
    key: 'metricsPort',
    default: '`9464`',
    meaning: 'separate Prometheus listener for `GET /metrics` (never the API port)',
    range: '0-65535; `0` = any free port, `off` = none',
    read: (e) =>
      e.METRICS_PORT?.trim().toLowerCase() === 'off' ? null : integer(e, 'METRICS_PORT', 9464, 0, 65535),
  }),
  option({
    env: 'METRICS_HOST',
    key: 'metricsHost',
    default: '`127.0.0.1`',
    meaning: 'bind address of the metrics listener (loopback unless opened on purpose)',
    read: (e) => hostName(e, 'METRICS_HOST', '127.0.0.1'),
  }),
  integerOption(
    'STUDIO_MEDIA_FETCHES_PER_HOUR',
    'studioMediaFetchesPerHour',
    100,
    [0, 1_000_000],
    'studio image/video URLs fetched per workspace per hour (429 past it); `0` = no limit',
  ),
  integerOption(
    'AUDIT_LOG_RETENTION_DAYS',
    'auditLogRetentionDays',
    365,
    [1, 3650],
    'audit-log entries older than this many days are deleted by the daily retention job (docs/security.md "Audit log")',
  ),
  option({
    env: 'ADMIN_SOCKET',
    key: 'adminSocket',
    default: '`DATA_DIR/admin.sock`',
    meaning: 'Unix socket on which the running service serves the admin CLI (0600); `off` disables it',
    read: (e) => {
      const socket = e.ADMIN_SOCKET?.trim();
      return socket === 'off' ? null : path.resolve(socket || path.join(dataDirOf(e), 'admin.sock'));
    },
  }),
  {
    env: 'SMTP_URL',
    key: 'mail',
    field: 'smtpUrl',
    default: '—',
    meaning:
      '`smtp://user:password@host:587` (STARTTLS when offered) or `smtps://host:465`: send email through this server; unset, each message is written to `MAIL_OUTBOX_DIR` and logged',
    read: (e) => ({ smtpUrl: url(e, 'SMTP_URL', ['smtp:', 'smtps:']) }) as unknown as Config['mail'],
  },
  {
    env: 'MAIL_FROM',
    key: 'mail',
    field: 'from',
    default: '`Brand Health <no-reply@localhost>`',
    meaning: 'sender of every email (`Name <address>` or an address)',
    read: (e) => ({ from: mailFrom(e) }) as unknown as Config['mail'],
  },
  {
    env: 'MAIL_OUTBOX_DIR',
    key: 'mail',
    field: 'outboxDir',
    default: '`DATA_DIR/outbox`',
    meaning: 'folder where email is written as `.eml` files when `SMTP_URL` is unset',
    read: (e) =>
      ({
        outboxDir: path.resolve(e.MAIL_OUTBOX_DIR?.trim() || path.join(dataDirOf(e), 'outbox')),
      }) as unknown as Config['mail'],
  },
  option({
    env: 'SIMULATOR_URL',
    key: 'simulatorUrl',
    default: '—',
    meaning:
      "the platform simulator (`npx brandhealth simulator`): every platform's OAuth and API endpoints default to it (docs/ingestion.md)",
    read: (e) => url(e, 'SIMULATOR_URL', ['http:', 'https:']),
  }),
  option({
    env: 'PLATFORM_<NAME>_*',
    key: 'platformOAuth',
    default: 'real endpoints, no client',
    meaning:
      "a platform's OAuth client and endpoints: `_CLIENT_ID`, `_CLIENT_SECRET`, `_SCOPES`, `_AUTHORIZE_URL`, `_TOKEN_URL`, `_REVOKE_URL`, `_API_URL`, `_REDIRECT_URI` (`<NAME>` = " +
      PLATFORMS.map((p) => `\`${p.toUpperCase()}\``).join(', ') +
      '; table in docs/ingestion.md "Real platform credentials")',
    read: platformOAuth,
  }),
  integerField(
    'SYNC_INTERVAL_MINUTES',
    'sync',
    'intervalMinutes',
    1440,
    [1, 7 * 1440],
    'how often each connection is synced (daily by default), spread over the interval (docs/ingestion.md "Scheduled sync")',
  ),
  integerField(
    'SYNC_CONCURRENCY',
    'sync',
    'concurrency',
    4,
    [1, 64],
    'syncs running at once per platform in one instance',
  ),
  integerField(
    'SYNC_ON_DEMAND_COOLDOWN_SECONDS',
    'sync',
    'onDemandCooldownSeconds',
    300,
    [0, 86_400],
    'the least time between two on-demand syncs of a connection (429 sooner)',
  ),
];

/** Reads and validates every variable of CONFIG_OPTIONS; the first invalid one throws ConfigError. */
export function loadConfig(env: Env = process.env): Config {
  const config: Partial<Record<keyof Config, unknown>> = {};
  for (const o of CONFIG_OPTIONS) {
    const value = o.read(env);
    config[o.key] = o.field ? { ...(config[o.key] as object | undefined), ...(value as object) } : value;
  }
  return config as Config;
}

/** The README's configuration table (Markdown), generated from CONFIG_OPTIONS. */
export function configTable(): string {
  const rows = CONFIG_OPTIONS.map((o) => [
    `\`${o.env}\``,
    o.default,
    o.range ? `${o.meaning} (${o.range})` : o.meaning,
  ]);
  const header = ['Variable', 'Default', 'Meaning'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
}
