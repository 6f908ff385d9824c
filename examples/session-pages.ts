/**
 * The HTML of the example's server-rendered site (`/login`, `/me`). Everything
 * printed into a page goes through `escapeHtml`; the one inline script carries the
 * response's CSP nonce and reads the CSRF token from a `<meta>` tag, so no value is
 * ever written into JavaScript.
 */
import type { AuthenticatedUser } from 'portcullis';

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML content and double- or single-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/gu, (c) => ESCAPES[c] ?? c);
}

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1d2330; }
  h1 { font-size: 1.6rem; } h2 { font-size: 1.1rem; margin-top: 1.6rem; }
  form.login { display: grid; gap: .6rem; max-width: 20rem; }
  label { display: grid; gap: .2rem; font-weight: 600; }
  input { font: inherit; padding: .35rem .5rem; border: 1px solid #9aa3b5; border-radius: 4px; }
  a.button { display: inline-block; padding: .4rem .9rem; border-radius: 4px; background: #b5651d; color: #fff; text-decoration: none; }
  button { font: inherit; padding: .4rem .9rem; border: 0; border-radius: 4px; background: #2754c5; color: #fff; cursor: pointer; }
  .notice { padding: .5rem .8rem; border-radius: 4px; background: #eef2fb; }
  .error { background: #fde8e8; color: #8a1c1c; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; }
  dt { font-weight: 600; } dd { margin: 0; }
  pre { background: #f3f5f9; padding: .6rem .8rem; border-radius: 4px; overflow-x: auto; font-size: .85rem; }
  .row { display: flex; gap: .5rem; align-items: center; }
`;

function layout(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)} · portcullis example</title>
${head}<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** What the login page shows. */
export interface LoginPageModel {
  /** The CSRF token of the (pre-login) session. */
  readonly csrfToken: string;
  /** The form field of the token (`_csrf`). */
  readonly csrfField: string;
  /** A checked same-origin path to return to after login, or `''`. */
  readonly target: string;
  /**
   * Why the last login failed: a wrong password (`/login?error`), the provider login
   * (`/login?error=oauth2`), or too many failures (`/login?error=throttled`).
   */
  readonly error: false | 'credentials' | 'oauth2' | 'throttled';
  readonly loggedOut: boolean;
  /** The link of "Log in with the local test provider", when the provider is on. */
  readonly oauth2Href?: string | undefined;
}

/** `GET /login`: the login form (username, password, `_csrf`, `continue`). */
export function loginPage(model: LoginPageModel): string {
  const notice =
    model.error === 'oauth2'
      ? '<p class="notice error" role="alert" id="login-error">The login with the provider did not succeed.</p>'
      : model.error === 'throttled'
        ? '<p class="notice error" role="alert" id="login-error">Too many failed logins: try again in a few minutes.</p>'
        : model.error === 'credentials'
          ? '<p class="notice error" role="alert" id="login-error">Wrong username or password.</p>'
          : model.loggedOut
            ? '<p class="notice" id="logged-out">You have been logged out.</p>'
            : '';
  const oauth2 =
    model.oauth2Href === undefined
      ? ''
      : `<p class="oauth2"><a class="button" id="oauth2-login" href="${escapeHtml(model.oauth2Href)}">Log in with the local test provider</a></p>
`;
  const target =
    model.target === ''
      ? ''
      : `<input type="hidden" name="continue" value="${escapeHtml(model.target)}">`;
  return layout(
    'Log in',
    `<h1>Log in</h1>
${notice}
<form class="login" method="post" action="/login">
  <input type="hidden" name="${escapeHtml(model.csrfField)}" value="${escapeHtml(model.csrfToken)}">
  ${target}
  <label>Username <input name="username" autocomplete="username" required autofocus></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">Log in</button>
</form>
${oauth2}<p>Demo users: <code>user</code>, <code>writer</code>, <code>admin</code>, <code>guest</code>
(password <code>&lt;name&gt;-password</code>).</p>`,
  );
}

/** What the `/me` page shows. */
export interface MePageModel {
  readonly user: AuthenticatedUser;
  readonly csrfToken: string;
  readonly csrfField: string;
  /** The response's CSP nonce, for the inline script. */
  readonly nonce: string;
}

const list = (values: ReadonlySet<string>): string =>
  values.size === 0 ? '(none)' : escapeHtml([...values].join(', '));

/** `GET /me`: the user, a logout form, and a script calling `/trpc` and `/graphql` with the cookie. */
export function mePage(model: MePageModel): string {
  const { user } = model;
  return layout(
    user.username,
    `<h1>Signed in as <span id="username">${escapeHtml(user.username)}</span></h1>
<dl>
  <dt>Roles</dt><dd id="roles">${list(user.roles)}</dd>
  <dt>Authorities</dt><dd id="authorities">${list(user.authorities)}</dd>
  <dt>Signed in with</dt><dd id="method">${escapeHtml(user.authenticationMethod)}</dd>
</dl>
<form method="post" action="/logout" id="logout">
  <input type="hidden" name="${escapeHtml(model.csrfField)}" value="${escapeHtml(model.csrfToken)}">
  <button type="submit">Log out</button>
</form>
<h2>tRPC <code>profile</code> — <code>GET /trpc/profile</code> with the session cookie</h2>
<pre id="trpc-profile" data-state="pending">…</pre>
<h2>GraphQL — <code>POST /graphql</code> with the cookie and <code>X-CSRF-Token</code></h2>
<pre id="graphql-profile" data-state="pending">…</pre>
<h2>tRPC mutation <code>posts.create</code> (needs <code>posts:write</code>)</h2>
<div class="row">
  <input id="post-title" value="Hello from the browser" aria-label="Post title">
  <button type="button" id="create-post">Create post</button>
</div>
<pre id="trpc-create" data-state="idle"></pre>
<script nonce="${escapeHtml(model.nonce)}">${SCRIPT}</script>`,
    `<meta name="csrf-token" content="${escapeHtml(model.csrfToken)}">\n`,
  );
}

// Static: no server value is interpolated into the script. fetch sends the
// (HttpOnly) session cookie to the same origin by default.
const SCRIPT = `
const token = document.querySelector('meta[name="csrf-token"]').content;
const json = { 'content-type': 'application/json', 'x-csrf-token': token };
async function call(id, url, init) {
  const out = document.getElementById(id);
  out.dataset.state = 'pending';
  try {
    const response = await fetch(url, init);
    const body = await response.json();
    out.textContent = 'HTTP ' + response.status + '\\n' + JSON.stringify(body, null, 2);
  } catch (error) {
    out.textContent = 'failed: ' + error;
  }
  out.dataset.state = 'done';
}
call('trpc-profile', '/trpc/profile', { headers: { accept: 'application/json' } });
call('graphql-profile', '/graphql', {
  method: 'POST',
  headers: { ...json, accept: 'application/graphql-response+json' },
  body: JSON.stringify({ query: '{ profile { username roles authorities } }' }),
});
document.getElementById('create-post').addEventListener('click', () => {
  const title = document.getElementById('post-title').value;
  call('trpc-create', '/trpc/posts.create', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ title }),
  });
});
`;
