// A throwaway OpenID provider for the company sign-in tests, built on the OpenID-certified
// oidc-provider package with its development sign-in pages (any password is accepted for a
// known account). Everything comes from the environment:
//   PORT            where it listens (the issuer is http://127.0.0.1:PORT)
//   CLIENT_ID, CLIENT_SECRET, REDIRECT_URI, POST_LOGOUT_REDIRECT_URI   the one client
//   ACCOUNTS        JSON {account id: claims}, e.g. {"lena": {"email": ..., "groups": [...]}}
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const accounts = JSON.parse(process.env.ACCOUNTS || '{}');

const provider = new Provider(issuer, {
  clients: [{
    client_id: process.env.CLIENT_ID,
    client_secret: process.env.CLIENT_SECRET,
    redirect_uris: [process.env.REDIRECT_URI],
    post_logout_redirect_uris: [process.env.POST_LOGOUT_REDIRECT_URI],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
  }],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name', 'given_name', 'family_name', 'preferred_username'],
    groups: ['groups'],
  },
  scopes: ['openid', 'email', 'profile', 'groups'],
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: true },
    rpInitiatedLogout: { enabled: true },
  },
  cookies: { keys: ['shortlist-test-cookie-key'] },
  async findAccount(ctx, id) {
    if (!accounts[id]) return undefined;
    return {
      accountId: id,
      async claims() {
        return { sub: id, preferred_username: id, email_verified: true, ...accounts[id] };
      },
    };
  },
});

provider.listen(port, '127.0.0.1', () => {
  console.log(`listening ${issuer}`);
});
