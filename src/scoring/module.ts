import type { DomainModule } from '../domain-module.ts';
import { scoringCli } from './cli.ts';
import { scoreRoutes } from './routes.ts';
import { scoringSandbox } from './sandbox.ts';

export const scoringModule: DomainModule = {
  name: 'scoring',
  routes: scoreRoutes,
  cli: scoringCli,
  sandbox: scoringSandbox,
};
