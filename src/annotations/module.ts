import type { DomainModule } from '../domain-module.ts';
import { annotationRoutes } from './routes.ts';
import { notesOnTimeline } from './timeline.ts';

/** Notes on a workspace's timeline (docs/annotations.md). */
export const annotationsModule: DomainModule = {
  name: 'annotations',
  routes: annotationRoutes,
  timeline: notesOnTimeline,
};
