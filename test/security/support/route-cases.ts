/**
 * The HTTP surface besides tRPC: better-auth's endpoints under /api/auth (listed from `auth.api`),
 * and the raw paths that once let a sign-up through. access.test.ts checks the keys against the code.
 */

/**
 * better-auth endpoints, "METHOD /path" → what an anonymous caller gets. `session` endpoints act on
 * the caller's own account: without a session they answer 401 (`send` is a body or query that passes
 * their input check, so the session check is what answers; "$victim" is replaced by the user id of A's
 * owner — naming another user must not stand in for a session). `public` ones answer anyone (with the
 * status given) and must carry nobody's data.
 */
export type AuthEndpointCase =
  { kind: "session"; send?: Record<string, string> } | { kind: "public"; anonymous: number };

export const AUTH_ENDPOINT_CASES: Record<string, AuthEndpointCase> = {
  "GET /account-info": { kind: "session", send: { accountId: "x" } },
  "GET /callback/:id": { kind: "public", anonymous: 302 },
  // Deleting users is disabled in Argus's better-auth options.
  "GET /delete-user/callback": { kind: "public", anonymous: 400 },
  "GET /error": { kind: "public", anonymous: 200 },
  "GET /get-session": { kind: "public", anonymous: 200 },
  "GET /list-accounts": { kind: "session" },
  "GET /list-sessions": { kind: "session" },
  "GET /ok": { kind: "public", anonymous: 200 },
  "GET /reset-password/:token": { kind: "public", anonymous: 400 },
  "GET /verify-email": { kind: "public", anonymous: 400 },
  "POST /callback/:id": { kind: "public", anonymous: 302 },
  "POST /change-email": { kind: "session", send: { newEmail: "new@example.test" } },
  "POST /change-password": {
    kind: "session",
    send: { currentPassword: "a long enough password", newPassword: "another long password" },
  },
  "POST /delete-user": { kind: "session" },
  "POST /get-access-token": { kind: "session", send: { accountId: "x", userId: "$victim" } },
  "POST /get-session": { kind: "public", anonymous: 405 },
  "POST /link-social": { kind: "session", send: { provider: "github" } },
  "POST /refresh-token": { kind: "session", send: { accountId: "x", userId: "$victim" } },
  "POST /request-password-reset": { kind: "public", anonymous: 400 },
  "POST /reset-password": { kind: "public", anonymous: 400 },
  "POST /revoke-other-sessions": { kind: "session" },
  "POST /revoke-session": { kind: "session", send: { token: "x" } },
  "POST /revoke-sessions": { kind: "session" },
  "POST /send-verification-email": { kind: "public", anonymous: 400 },
  "POST /sign-in/email": { kind: "public", anonymous: 400 },
  "POST /sign-in/social": { kind: "public", anonymous: 400 },
  "POST /sign-out": { kind: "public", anonymous: 200 },
  // Accounts are made by account.signUp only (docs/architecture.md "Auth").
  "POST /sign-up/email": { kind: "public", anonymous: 403 },
  "POST /unlink-account": { kind: "session", send: { accountId: "x" } },
  "POST /update-session": { kind: "session" },
  "POST /update-user": { kind: "session" },
  "POST /verify-password": { kind: "session", send: { password: "a long enough password" } },
};

/**
 * Ways to spell better-auth's sign-up endpoint that a prefix check on the raw path misses (issue 11
 * fix 2: `%2e` was verified against a running server). Sent byte for byte; every one must be refused.
 */
export const SIGN_UP_SPELLINGS = [
  "/api/auth/sign-up/email",
  "/api/auth/%2e/sign-up/email",
  "/api/auth/%2E/sign-up/email",
  "/api/auth/./sign-up/email",
  "/api/auth//sign-up/email",
  "/api/auth///sign-up/email",
  "/api/auth/x/../sign-up/email",
  "/api/auth/x/%2e%2e/sign-up/email",
  "/api/auth/sign-in/../sign-up/email",
  "/api/auth/%73ign-up/email",
  "/api/auth/sign%2dup/email",
  "/api/auth/sign-up%2femail",
  "/api/auth/sign-up%2Femail",
  "/api/auth/sign-up/email/",
  "/api/auth/sign-up/email?callbackURL=/",
  "/api/auth/Sign-Up/email",
  "/api/auth/SIGN-UP/EMAIL",
  "/api/auth/%2e%2e/auth/sign-up/email",
  "/api/auth/%252e/sign-up/email",
  "/api/auth/;/sign-up/email",
  "/api/auth/sign-up;/email",
  "/api/auth\\sign-up\\email",
];
