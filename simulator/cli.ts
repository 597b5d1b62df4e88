import { Command, InvalidArgumentError } from 'commander';
import { isCalendarDay, utcDay } from '../src/core/days.ts';
import { startSimulator } from './server.ts';

/**
 * `brandhealth simulator`: runs the platform simulator in the foreground until interrupted. It runs
 * in this process, never through a running service's admin socket (it is not a database command).
 */
export async function runSimulatorCli(argv: string[]): Promise<number> {
  const number = (name: string, max: number) => (v: string) => {
    const n = Number(v);
    if (!/^\d+(\.\d+)?$/.test(v) || n > max)
      throw new InvalidArgumentError(`${name} must be a number 0..${max}`);
    return n;
  };
  const program = new Command('brandhealth simulator')
    .description('serve the platform simulator (OAuth 2.0 server and the five platform APIs) on loopback')
    .option('--port <port>', 'port to listen on', number('port', 65535), 8090)
    .option('--host <host>', 'loopback address to listen on', '127.0.0.1')
    .option(
      '--speed <n>',
      'simulated seconds per real second (1440: a day a minute; 0: still)',
      number('speed', 1e7),
      1,
    )
    .option(
      '--start <day>',
      "the simulator's first day (YYYY-MM-DD; default today); a clock started in the past catches up " +
        'with the real one at --speed, then follows it (the service stores no day after its own today)',
    )
    .exitOverride();
  try {
    program.parse(argv, { from: 'user' });
  } catch (error) {
    return (error as { exitCode?: number }).exitCode ?? 1;
  }
  const o = program.opts<{ port: number; host: string; speed: number; start?: string }>();
  if (o.start !== undefined && !isCalendarDay(o.start)) {
    console.error(`brandhealth simulator: --start must be a YYYY-MM-DD date, got "${o.start}"`);
    return 1;
  }
  if (o.start !== undefined && o.start > utcDay(new Date())) {
    console.error(
      `brandhealth simulator: --start ${o.start} is in the future (a platform has no days ahead of today)`,
    );
    return 1;
  }
  if (!['127.0.0.1', '::1', 'localhost'].includes(o.host)) {
    console.error(
      'brandhealth simulator: --host must be a loopback address (the simulator has no authentication)',
    );
    return 1;
  }
  const sim = await startSimulator({
    port: o.port,
    host: o.host,
    speed: o.speed,
    ...(o.start ? { startDay: o.start } : {}),
    capAtNow: true,
  });
  console.log(`platform simulator on ${sim.url} (today ${sim.today()}, speed ${o.speed}x)`);
  if (o.speed > 1 && sim.today() === utcDay(new Date()))
    console.log(
      'its clock is at the real today and goes no further: for accelerated days give a --start in the past',
    );
  console.log(`point the service at it with SIMULATOR_URL=${sim.url}`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await sim.close();
  return 0;
}
