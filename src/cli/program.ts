import { Command, InvalidArgumentError, Option } from 'commander';
import { createApiKey, listApiKeys, revokeApiKey } from '../admin/keys.ts';
import { connectPlatform, disconnectPlatform } from '../admin/platforms.ts';
import { createSubscriber, grantEntitlement, listEntitlements, revokeEntitlement } from '../admin/tacsi.ts';
import {
  createSector,
  createWorkspace,
  listWorkspaces,
  setParent,
  setPlan,
  setSector,
} from '../admin/workspaces.ts';
import type { AppContext } from '../context.ts';
import { loadConfig } from '../infra/config.ts';
import { generateKeyEntry } from '../infra/crypto/keyring.ts';
import { resealAll, sealedCounts } from '../infra/crypto/sealed-columns.ts';
import {
  ACCOUNT_TYPES,
  BENCHMARK_INDUSTRIES,
  BILLING_PERIODS,
  ORG_TYPES,
  PILLARS,
  PLANS,
  PLATFORMS,
  SCOPES,
} from '../core/catalog.ts';
import { utcDay } from '../core/days.ts';
import { createService } from '../service.ts';
import { describeStartupFailure, StartupError } from '../infra/startup-errors.ts';
import { runDemo } from '../sandbox/demo.ts';
import { resetSandbox } from '../sandbox/reset.ts';
import { CLI_EXTENSIONS } from './commands.ts';
import { failureOf } from './failure.ts';
import {
  dayOption,
  instantOption,
  limitOption,
  type CliIo,
  type CliOutput,
  type WithContext,
} from '../infra/cli/registry.ts';

function oneOf<T extends string>(values: readonly T[], label: string) {
  return (value: string): T => {
    if (!values.includes(value as T))
      throw new InvalidArgumentError(`${label} must be one of ${values.join(', ')}`);
    return value as T;
  };
}

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

function table(rows: Array<Record<string, unknown>>, columns: string[]): string {
  if (!rows.length) return '(none)';
  const cells = rows.map((r) => columns.map((c) => formatCell(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}

function formatCell(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.join(',');
  return String(v);
}

/**
 * The admin CLI's commands, run either by the `brandhealth` process itself on a database it opens
 * (`runLocally`), or by the running service for a CLI that reached it through the admin socket
 * (src/infra/admin-socket.ts), on the service's own context. Both print through `io` and
 * return the exit code, so the output and codes are the same either way.
 */
export function buildProgram(io: CliIo, withContext: WithContext): Command {
  const program = new Command('brandhealth')
    .description('Administer brand-health: workspaces, keys, platforms, TACSI entitlements, sandbox')
    .option('--json', 'print results as JSON')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  const output: CliOutput = {
    result(value, human) {
      if (program.opts().json || !human) io.out(`${JSON.stringify(value, null, 2)}\n`);
      else io.out(`${human()}\n`);
    },
  };

  // --- workspaces -------------------------------------------------------------------------
  const workspace = program.command('workspace').description('create, list and move workspaces');
  workspace
    .command('create')
    .description('create a workspace')
    .requiredOption('--name <name>', 'display name')
    .addOption(new Option('--plan <plan>', 'plan').argParser(oneOf(PLANS, 'plan')).makeOptionMandatory())
    .option('--parent <workspaceId>', 'parent agency workspace (makes this a client)')
    .option(
      '--account-type <type>',
      `account type (${ACCOUNT_TYPES.join(', ')})`,
      oneOf(ACCOUNT_TYPES, 'account type'),
    )
    .option('--org-type <type>', `organisation type (${ORG_TYPES.join(', ')})`, oneOf(ORG_TYPES, 'org type'))
    .option('--sector <slug>', 'consumer sector (TACSI cohort)')
    .option('--billing-period <period>', 'monthly or annual', oneOf(BILLING_PERIODS, 'billing period'))
    .option('--realtime', 'enable real-time scoring (agency plans)')
    .option('--white-label', 'white-labelled client')
    .action(async (o) =>
      withContext(async (ctx) => {
        const ws = await createWorkspace(ctx.db, {
          name: o.name,
          plan: o.plan,
          parentId: o.parent ?? null,
          accountType: o.accountType,
          orgType: o.orgType,
          sector: o.sector ?? null,
          billingPeriod: o.billingPeriod,
          realtimeScoring: !!o.realtime,
          isWhiteLabeled: !!o.whiteLabel,
        });
        output.result(ws, () => `created workspace ${ws.id} (${ws.name}, ${ws.plan})`);
      }),
    );
  workspace
    .command('list')
    .description('list workspaces')
    .option('--parent <workspaceId>', 'only the clients of this agency')
    .option('--limit <n>', 'workspaces per page (1-1000)', limitOption, 50)
    .option('--after <workspaceId>', 'the page after this workspace (the last id of the previous page)')
    .option('--all', 'every workspace, no paging')
    .action(async (o) =>
      withContext(async (ctx) => {
        const { rows, more } = await listWorkspaces(ctx.db, {
          parentId: o.parent,
          after: o.after,
          limit: o.all ? undefined : o.limit,
        });
        output.result(rows, () =>
          table(rows, ['id', 'name', 'plan', 'account_type', 'parent_id', 'sector_slug']),
        );
        // On stderr, so a pipe of the table (or of --json) reads only rows.
        if (more) io.err(`more workspaces follow: --after ${rows.at(-1)!.id} (or --all)\n`);
      }),
    );
  workspace
    .command('move')
    .description('move a client workspace to another agency ("none" detaches it)')
    .argument('<workspaceId>')
    .requiredOption('--parent <workspaceId|none>', 'new parent agency')
    .action(async (id, o) =>
      withContext(async (ctx) => {
        const parent = o.parent === 'none' ? null : o.parent;
        await setParent(ctx.db, id, parent);
        output.result({ id, parent_id: parent }, () => `moved ${id} under ${parent ?? 'no agency'}`);
      }),
    );
  workspace
    .command('set-plan')
    .description('move a workspace to another plan (its limits apply from the next request)')
    .argument('<workspaceId>')
    .addOption(new Option('--plan <plan>', 'plan').argParser(oneOf(PLANS, 'plan')).makeOptionMandatory())
    .action(async (id, o) =>
      withContext(async (ctx) => {
        await setPlan(ctx.db, id, o.plan);
        output.result({ id, plan: o.plan }, () => `${id} is on the ${o.plan} plan`);
      }),
    );
  workspace
    .command('set-sector')
    .description(
      'move a workspace to another sector ("none" removes it); TACSI charges it in both for a year',
    )
    .argument('<workspaceId>')
    .requiredOption('--sector <slug|none>', 'new sector')
    .option('--from <YYYY-MM-DD>', 'day the change takes effect (default today, UTC)', dayOption)
    .action(async (id, o) =>
      withContext(async (ctx) => {
        const sector = o.sector === 'none' ? null : o.sector;
        const from = o.from ?? utcDay(ctx.now());
        await setSector(ctx.db, id, sector, from);
        output.result(
          { id, sector_slug: sector, from },
          () => `${id} is in ${sector ?? 'no sector'} from ${from}`,
        );
      }),
    );

  // --- sectors ----------------------------------------------------------------------------
  const sector = program.command('sector').description('the TACSI sector taxonomy');
  sector
    .command('create')
    .argument('<slug>', 'lower-case words joined by hyphens')
    .requiredOption('--name <name>', 'display name')
    .option('--not-consumer', 'exclude from the consumer index')
    .option(
      '--benchmark-industry <industry>',
      `published benchmark industry its brands are judged against: all, or one of ${BENCHMARK_INDUSTRIES.join(', ')}`,
    )
    .action(async (slug, o) =>
      withContext(async (ctx) => {
        const saved = await createSector(ctx.db, slug, o.name, !o.notConsumer, o.benchmarkIndustry);
        output.result(saved, () => `sector ${slug} saved`);
      }),
    );
  sector.command('list').action(async () =>
    withContext(async (ctx) => {
      const rows = await ctx.db.selectFrom('sectors').selectAll().orderBy('slug').execute();
      output.result(rows, () => table(rows, ['slug', 'name', 'is_consumer', 'benchmark_industry']));
    }),
  );

  // --- keys -------------------------------------------------------------------------------
  const key = program.command('key').description('issue, list and revoke API keys');
  key
    .command('create')
    .description('issue a key (the secret is shown once)')
    .option('--workspace <workspaceId>', 'owner workspace')
    .option('--subscriber <subscriberId>', 'owner TACSI subscriber')
    .option('--scopes <list>', `comma-separated scopes (${SCOPES.join(', ')})`, 'read,write')
    .option('--expires <iso>', 'expiry (ISO 8601)', instantOption)
    .option('--name <name>', 'label')
    .action(async (o) =>
      withContext(async (ctx) => {
        const created = await createApiKey(
          ctx.db,
          { workspaceId: o.workspace, subscriberId: o.subscriber },
          {
            scopes: String(o.scopes)
              .split(',')
              .map((s: string) => s.trim()) as never,
            expiresAt: o.expires ?? null,
            name: o.name,
          },
        );
        output.result(
          created,
          () =>
            `key ${created.id} (${created.scopes.join(',')}):\n${created.key}\nStore it now: it is not shown again.`,
        );
      }),
    );
  key
    .command('list')
    .option('--workspace <workspaceId>')
    .option('--subscriber <subscriberId>')
    .action(async (o) =>
      withContext(async (ctx) => {
        const rows = await listApiKeys(ctx.db, { workspaceId: o.workspace, subscriberId: o.subscriber });
        output.result(rows, () =>
          table(rows, [
            'id',
            'prefix',
            'workspace_id',
            'subscriber_id',
            'scopes',
            'expires_at',
            'revoked_at',
          ]),
        );
      }),
    );
  key
    .command('revoke')
    .argument('<keyId>')
    .action(async (id) =>
      withContext(async (ctx) => {
        await revokeApiKey(ctx.db, id, ctx.now());
        output.result(
          { id, revoked: true },
          () => `revoked ${id} (running servers stop accepting it within AUTH_CACHE_TTL_MS)`,
        );
      }),
    );

  // --- platforms --------------------------------------------------------------------------
  const platform = program.command('platform').description('connect and disconnect social platforms');
  platform
    .command('connect')
    .requiredOption('--workspace <workspaceId>')
    .addOption(new Option('--platform <name>').argParser(oneOf(PLATFORMS, 'platform')).makeOptionMandatory())
    .requiredOption('--handle <handle>')
    .option('--followers <n>', 'current audience size', positiveInt)
    .action(async (o) =>
      withContext(async (ctx) => {
        const id = await connectPlatform(ctx.db, {
          workspaceId: o.workspace,
          platform: o.platform,
          handle: o.handle,
          followers: o.followers,
        });
        output.result(
          { id, workspace_id: o.workspace, platform: o.platform },
          () => `connected ${o.platform} (${id})`,
        );
      }),
    );
  platform
    .command('disconnect')
    .requiredOption('--workspace <workspaceId>')
    .addOption(new Option('--platform <name>').argParser(oneOf(PLATFORMS, 'platform')).makeOptionMandatory())
    .action(async (o) =>
      withContext(async (ctx) => {
        await disconnectPlatform(ctx.db, o.workspace, o.platform, ctx.now());
        output.result(
          { workspace_id: o.workspace, platform: o.platform, status: 'disconnected' },
          () => `disconnected ${o.platform}`,
        );
      }),
    );

  // --- TACSI ------------------------------------------------------------------------------
  const subscriber = program.command('subscriber').description('institutional TACSI subscribers');
  subscriber
    .command('create')
    .requiredOption('--name <name>')
    .action(async (o) =>
      withContext(async (ctx) => {
        const id = await createSubscriber(ctx.db, o.name);
        output.result({ id, name: o.name }, () => `created subscriber ${id}`);
      }),
    );
  const entitlement = program.command('entitlement').description('grant and revoke TACSI entitlements');
  entitlement
    .command('grant')
    .requiredOption('--subscriber <subscriberId>')
    .addOption(
      new Option('--kind <kind>')
        .argParser(oneOf(['sector_feed', 'daily_addon', 'pillar_feed', 'full_database'] as const, 'kind'))
        .makeOptionMandatory(),
    )
    .option('--sector <slug>')
    .option('--pillar <pillar>', `pillar (${PILLARS.join(', ')})`, oneOf(PILLARS, 'pillar'))
    .option('--exclusive', 'hold the sector exclusively (sector_feed only)')
    .option('--valid-from <date>', 'YYYY-MM-DD (default today, UTC)', dayOption)
    .option('--valid-until <date>', 'YYYY-MM-DD', dayOption)
    .action(async (o) =>
      withContext(async (ctx) => {
        const id = await grantEntitlement(ctx.db, {
          subscriberId: o.subscriber,
          kind: o.kind,
          sector: o.sector ?? null,
          pillar: o.pillar ?? null,
          exclusive: !!o.exclusive,
          // Default: the service's today, not the database server's (the column's CURRENT_DATE).
          validFrom: o.validFrom ?? utcDay(ctx.now()),
          validUntil: o.validUntil ?? null,
        });
        output.result(
          { id, subscriber_id: o.subscriber, kind: o.kind, sector: o.sector ?? null },
          () => `granted ${o.kind} (${id})`,
        );
      }),
    );
  entitlement
    .command('revoke')
    .argument('<entitlementId>')
    .action(async (id) =>
      withContext(async (ctx) => {
        await revokeEntitlement(ctx.db, id, ctx.now());
        output.result({ id, revoked: true }, () => `revoked ${id}`);
      }),
    );
  entitlement
    .command('list')
    .option('--subscriber <subscriberId>')
    .action(async (o) =>
      withContext(async (ctx) => {
        const rows = await listEntitlements(ctx.db, o.subscriber);
        output.result(rows, () =>
          table(rows, [
            'id',
            'subscriber_id',
            'kind',
            'sector_slug',
            'pillar',
            'exclusive',
            'valid_until',
            'revoked_at',
          ]),
        );
      }),
    );

  // --- secrets at rest --------------------------------------------------------------------
  const encryption = program
    .command('encryption')
    .description('the key ring that seals secrets at rest (ENCRYPTION_KEYS, docs/operations.md)');
  encryption
    .command('generate')
    .description('print a new key ring entry (kid:base64) to put first in ENCRYPTION_KEYS')
    .action(() => {
      const entry = generateKeyEntry();
      output.result({ entry }, () => entry);
    });
  encryption
    .command('status')
    .description(
      'how many stored secrets each key id seals, per binding (row; purpose only: sealed before row binding)',
    )
    .action(async () =>
      withContext(async (ctx) => {
        const rows = await sealedCounts(ctx.db);
        output.result(
          { active_key_id: ctx.keyRing.activeKeyId, key_ids: ctx.keyRing.keyIds, sealed: rows },
          () =>
            [
              `active key: ${ctx.keyRing.activeKeyId}`,
              table(rows, ['column', 'key_id', 'binding', 'values']),
            ].join('\n'),
        );
      }),
    );
  encryption
    .command('rotate')
    .description(
      're-seal every stored secret under the active (first) key, bound to its row; then older keys can be removed',
    )
    .action(async () =>
      withContext(async (ctx) => {
        const refusals: string[] = [];
        const { resealed, refused } = await resealAll(ctx.db, ctx.keyRing, {
          log: (message) => refusals.push(message),
        });
        const total = Object.values(resealed).reduce((a, b) => a + b, 0);
        const bad = Object.values(refused).reduce((a, b) => a + b, 0);
        output.result({ active_key_id: ctx.keyRing.activeKeyId, resealed, refused }, () =>
          [
            `re-sealed ${total} secret${total === 1 ? '' : 's'} under key ${ctx.keyRing.activeKeyId}; ` +
              (bad === 0
                ? 'keys other than the active one can now be removed from ENCRYPTION_KEYS'
                : `${bad} value${bad === 1 ? '' : 's'} did not open in ${bad === 1 ? 'its' : 'their'} own row ` +
                  'and were left as they are (the connection reconnects, the webhook is re-created):'),
            ...refusals,
          ].join('\n'),
        );
      }),
    );

  // --- operations -------------------------------------------------------------------------
  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () =>
      withContext(async () => output.result({ migrated: true }, () => 'database is up to date')),
    );

  program
    .command('demo')
    .description('seed the sandbox (idempotent) and write its manifest')
    .requiredOption('--out <file>', 'where to write the manifest JSON')
    .option('--base-url <url>', 'base URL written into the manifest')
    .option('--force', 'seed even a database that holds data other than the sandbox')
    .action(async (o) =>
      withContext(async (ctx: AppContext) => {
        const manifest = await runDemo(ctx, {
          out: o.out,
          baseUrl: o.baseUrl,
          force: !!o.force,
          log: (line) => io.err(`${line}\n`),
        });
        output.result(manifest, () => `sandbox ready; manifest written to ${o.out}\ndocs: ${manifest.docs}`);
      }),
    );

  const sandbox = program.command('sandbox').description('the demo sandbox seeded by `demo`');
  sandbox
    .command('reset')
    .description('back to the seeded state: campaigns, webhooks, events and audits made since are deleted')
    .action(async () =>
      withContext(async (ctx) => {
        const result = await resetSandbox(ctx);
        output.result(result, () =>
          result.seeded_at === null
            ? 'no sandbox in this database (run `brandhealth demo` first)'
            : `sandbox reset to its seed of ${result.seeded_at}: deleted ${result.campaigns} campaigns, ` +
              `${result.webhooks} webhooks, ${result.events} events, ${result.audits} audits`,
        );
      }),
    );

  for (const extend of CLI_EXTENSIONS) extend(program, withContext, output);
  return program;
}

/** Runs one CLI invocation (arguments after the program name); resolves with its exit code. */
export async function runCli(argv: readonly string[], io: CliIo, withContext: WithContext): Promise<number> {
  const program = buildProgram(io, withContext);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    const failure = failureOf(error);
    if (failure.line !== null) io.err(`brandhealth: ${failure.line}\n`);
    return failure.code;
  }
}

/**
 * Runs one invocation in this process, opening the database `env` configures for it (no service
 * running). `brandhealth` passes its own streams and environment; tests pass theirs.
 */
export async function runLocally(
  argv: readonly string[],
  io: CliIo = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) },
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const withContext: WithContext = async (fn) => {
    const config = { ...loadConfig(env), runWorkers: false, logLevel: 'silent' as const };
    // A database that cannot be opened reads as the service reports it: one line naming the setting.
    const service = await createService(config).catch((error: unknown) => {
      throw failureOf(error).known ? error : new StartupError(describeStartupFailure(error, config));
    });
    try {
      return await fn(service.ctx);
    } finally {
      await service.stop();
    }
  };
  return runCli(argv, io, withContext);
}
