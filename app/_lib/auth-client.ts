"use client";
import { createAuthClient } from "better-auth/react";

/** better-auth's browser client: sign-in and sign-out (sign-up goes through account.signUp). */
export const authClient = createAuthClient({ basePath: "/api/auth" });
