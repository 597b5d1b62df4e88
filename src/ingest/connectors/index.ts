import { facebookConnector } from './facebook.ts';
import { instagramConnector } from './instagram.ts';
import { tiktokConnector } from './tiktok.ts';
import type { PlatformConnector } from './types.ts';
import { twitterConnector } from './twitter.ts';
import { youtubeConnector } from './youtube.ts';
import type { Platform } from '../../core/catalog.ts';

export const CONNECTORS: Record<Platform, PlatformConnector> = {
  instagram: instagramConnector,
  tiktok: tiktokConnector,
  youtube: youtubeConnector,
  twitter: twitterConnector,
  facebook: facebookConnector,
};

export { ApiClient } from './http.ts';
export { FACEBOOK_DIALOG_URL, GRAPH_API_VERSION, GRAPH_BASE_URL, GRAPH_TOKEN_URL } from './graph.ts';
export {
  ConnectorError,
  CONNECTOR_ERROR_KINDS,
  httpFault,
  partial,
  type ConnectorErrorKind,
  type PlatformAnswer,
  type PlatformFault,
} from './http.ts';
export { type ConnectorResult, type DayRange, type PartialFailure, type PlatformConnector } from './types.ts';
