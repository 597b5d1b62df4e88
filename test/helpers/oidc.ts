import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Account, type Interaction } from 'oidc-provider';

/** An account at the test provider: the claims its ID token and UserInfo carry. */
export interface ProviderAccount {
  email: string;
  email_verified: boolean;
  name: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Adds an account; returns its subject. */
  account(claims: ProviderAccount): string;
  /** The account the login step signs in next (the provider has no form: the test chooses). */
  signInAs(subject: string): void;
  close(): Promise<void>;
}

let accounts = 0;

/**
 * A real OpenID Connect provider (panva's oidc-provider) on a loopback port, with one confidential
 * client whose redirect URI is `redirectUri`. Its login step signs in the account the test chose
 * and grants the requested scopes; everything else (authorization, PKCE, tokens, ID token signing,
 * UserInfo, discovery) is the provider's own.
 */
export async function startTestProvider(redirectUri: string): Promise<TestProvider> {
  const known = new Map<string, ProviderAccount>();
  let next = '';
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'brand-health';
  const clientSecret = 'a-long-client-secret-for-the-test-provider';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: ['test-cookie-key'] },
    ttl: {
      Interaction: 600,
      Grant: 600,
      Session: 600,
      AccessToken: 600,
      IdToken: 600,
      AuthorizationCode: 60,
    },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: Interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, id: string): Account | undefined => {
      const account = known.get(id);
      return account ? { accountId: id, claims: () => ({ sub: id, ...account }) } : undefined;
    },
  });
  const handle = provider.callback();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!req.url?.startsWith('/interaction/')) return void handle(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const grant = new provider.Grant({ accountId: next, clientId });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: next }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  return {
    issuer,
    clientId,
    clientSecret,
    account(claims) {
      const id = `acct-${++accounts}`;
      known.set(id, claims);
      return id;
    },
    signInAs(subject) {
      next = subject;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
