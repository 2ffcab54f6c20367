// A real OpenID Connect provider for the sign-in tests: the certified `oidc-provider` package with
// its development login pages (any password), one confidential client, and accounts whose ID token
// carries `roles` and `stores` claims. Usage: node provider.mjs <port> <redirect_uri>
// Prints "ready <issuer>" on stdout once it listens.
import Provider from "oidc-provider";

const [port, redirectUri] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;

const ACCOUNTS = {
  manu: { name: "Manu Manageri", roles: ["FI.Manager"], stores: ["*"] },
  kaisa: { name: "Kaisa Kassa", roles: ["FI.Clerk"], stores: ["s1"] },
  nobody: { name: "Ei Rooleja", roles: [], stores: [] },
  // the directory's raw values, unmapped: an attacker who can write a role attribute, not the role map
  mallory: { name: "", roles: ["operator", "FI.Clerk"], stores: ["*", "s1", "s9"] },
};

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: "fi-test",
      client_secret: "fi-test-secret",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
  ],
  claims: {
    openid: ["sub", "roles", "stores"],
    profile: ["name", "preferred_username"],
    email: ["email"],
  },
  conformIdTokenClaims: false, // the scope's claims in the ID token, as Entra ID and Keycloak put roles there
  features: { devInteractions: { enabled: true } },
  cookies: { keys: ["fi-test-cookie-key"] },
  async findAccount(ctx, id) {
    const account = ACCOUNTS[id] || { name: id, roles: [], stores: [] };
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          name: account.name,
          preferred_username: id,
          email: `${id}@example.test`,
          roles: account.roles,
          stores: account.stores,
        };
      },
    };
  },
});
provider.proxy = false;

provider.listen(Number(port), "127.0.0.1", () => {
  process.stdout.write(`ready ${issuer}\n`);
});
