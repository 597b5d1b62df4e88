declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** The part of oidc-provider (panva) the tests use: a real OpenID Connect provider. */
  interface Interaction {
    uid: string;
    params: Record<string, unknown>;
  }
  interface Account {
    accountId: string;
    claims: () => Record<string, unknown> | Promise<Record<string, unknown>>;
  }
  interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    Grant: new (init: { accountId: string; clientId: string }) => Grant;
  }
  export type { Account, Interaction };
}
