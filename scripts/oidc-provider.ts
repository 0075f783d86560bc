/**
 * A real OIDC provider (panva's `oidc-provider`) for the local stack's OAUTHBEARER listener (scripts/stack.sh,
 * KAFKA_SECURITY=oauth): one confidential client with the client credentials grant, JWT access tokens (RS256) for the
 * audience the broker expects, its JWKS at /jwks. Loopback only; the signing key is made at each start.
 *
 *   node scripts/oidc-provider.ts PORT CLIENT_ID CLIENT_SECRET_FILE AUDIENCE TOKEN_TTL_S
 *
 * The issuer is http://127.0.0.1:PORT; the token endpoint /token. Prints "ready" on stdout once listening.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [portText, clientId, secretFile, audience, ttlText] = process.argv.slice(2);
if (portText === undefined || clientId === undefined || secretFile === undefined || audience === undefined || ttlText === undefined) {
  process.stderr.write('usage: node scripts/oidc-provider.ts PORT CLIENT_ID CLIENT_SECRET_FILE AUDIENCE TOKEN_TTL_S\n');
  process.exit(2);
}
const port = Number(portText);
const ttl = Number(ttlText);
const secret = readFileSync(secretFile, 'utf8').trim();
const issuer = `http://127.0.0.1:${port}`;

// Untyped package: loaded by name so the type checker does not look for its declarations.
const moduleName = 'oidc-provider';
const { default: Provider } = (await import(moduleName)) as {
  default: new (issuer: string, configuration: object) => { listen: (port: number, host: string, ready: () => void) => unknown };
};

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'stack-oauth-1', alg: 'RS256', use: 'sig' };

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: secret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'kafka',
    },
  ],
  jwks: { keys: [jwk] },
  scopes: ['kafka'],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => audience,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: 'kafka',
        audience,
        accessTokenTTL: ttl,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
  ttl: { ClientCredentials: ttl },
});

provider.listen(port, '127.0.0.1', () => {
  process.stdout.write(`ready ${issuer}\n`);
});
