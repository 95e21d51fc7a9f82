/**
 * One error type for every provider. SDK errors (both SDKs share the same class layout), network
 * failures and our own stream checks are classified here, so retry decisions and messages are the
 * same whichever provider failed. Messages name provider, model and status, then quote the
 * provider's own message verbatim (the Settings page shows it as is). Keys never appear: SDK error
 * messages carry the response body, not the request headers.
 */
import type { LlmErrorInfo, LlmErrorKind, ProviderId } from "./types.ts";

export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  readonly provider: ProviderId;
  readonly model: string;
  readonly status: number | undefined;
  readonly retryable: boolean;
  /** From retry-after-ms / retry-after, when the provider sent one. */
  readonly retryAfterMs: number | undefined;
  attempts = 1;

  constructor(init: {
    kind: LlmErrorKind;
    provider: ProviderId;
    model: string;
    detail: string;
    status?: number;
    retryAfterMs?: number;
    cause?: unknown;
  }) {
    const status = init.status === undefined ? "" : ` ${init.status}`;
    super(`${init.provider} (${init.model})${status}: ${init.detail}`, { cause: init.cause });
    this.name = "LlmError";
    this.kind = init.kind;
    this.provider = init.provider;
    this.model = init.model;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
    this.retryable = RETRYABLE.has(init.kind);
  }

  /** Names provider, model and status, then the provider's own words: shown to users as is (server/errors.ts isUserFacing). */
  get userFacing(): boolean {
    return true;
  }

  toInfo(): LlmErrorInfo {
    const info: LlmErrorInfo = {
      kind: this.kind,
      message: this.attempts > 1 ? `${this.message} (after ${this.attempts} attempts)` : this.message,
      provider: this.provider,
      model: this.model,
      retryable: this.retryable,
      attempts: this.attempts,
    };
    if (this.status !== undefined) info.status = this.status;
    return info;
  }

  static fromInfo(info: LlmErrorInfo): LlmError {
    const e = new LlmError({ kind: info.kind, provider: info.provider, model: info.model, detail: "" });
    e.message = info.message;
    Object.assign(e, { status: info.status, retryable: info.retryable, attempts: info.attempts });
    return e;
  }
}

const RETRYABLE = new Set<LlmErrorKind>(["rate_limit", "server", "network", "timeout"]);

/**
 * Some providers echo the key they were sent ("invalid x-api-key: sk-…"). The message is shown to
 * users and stored with reviews, so the key is cut out of it, and the raw SDK error (its cause, which
 * holds the same body) is dropped so no log serializer prints it.
 */
export function withoutSecret(err: LlmError, secret: string | undefined): LlmError {
  if (!secret || secret.length < 8 || !err.message.includes(secret)) return err;
  err.message = err.message.split(secret).join("[key redacted]");
  Object.defineProperty(err, "cause", { value: undefined, configurable: true, writable: true });
  return err;
}

/** Raised by adapters when a stream ends without the provider's final event (connection cut). */
export class StreamCutError extends Error {
  constructor(what: string) {
    super(`the connection closed before the response finished (${what})`);
    this.name = "StreamCutError";
  }
}

/** Raised by the stream guard when no data arrived for idleTimeoutMs. */
export class IdleTimeoutError extends Error {
  constructor(ms: number) {
    super(`no data from the provider for ${ms} ms`);
    this.name = "IdleTimeoutError";
  }
}

type SdkApiError = { status: number | undefined; headers: Headers | undefined; error: unknown; message: string };

type ErrorClass = abstract new (...args: never[]) => object;
/** A provider SDK's error classes (the SDKs' default exports carry them as statics). */
export interface SdkErrorClasses {
  APIError: ErrorClass;
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
}

/**
 * The SDKs whose errors classifyError recognises. Each SDK's wrapper module registers its SDK when it
 * loads, so classifying never loads an SDK (the Anthropic SDK takes seconds to load on a busy
 * machine) — and an SDK that never loaded threw nothing.
 */
const sdks: SdkErrorClasses[] = [];
export function registerSdkErrors(sdk: SdkErrorClasses): void {
  if (!sdks.includes(sdk)) sdks.push(sdk);
}
const isSdk = (err: unknown, kind: keyof SdkErrorClasses) => sdks.some((sdk) => err instanceof sdk[kind]);

const isSdkApiError = (err: unknown): err is SdkApiError => isSdk(err, "APIError");
const isSdkAbort = (err: unknown) => isSdk(err, "APIUserAbortError");
const isSdkTimeout = (err: unknown) => isSdk(err, "APIConnectionTimeoutError");
const isSdkConnection = (err: unknown) => isSdk(err, "APIConnectionError");

/** Maps anything thrown while talking to a provider to an LlmError. */
export function classifyError(err: unknown, provider: ProviderId, model: string, aborted: boolean): LlmError {
  if (err instanceof LlmError) return err;
  const base = { provider, model, cause: err };
  if (aborted || isSdkAbort(err) || (err instanceof Error && err.name === "AbortError")) {
    return new LlmError({ ...base, kind: "aborted", detail: "request cancelled" });
  }
  if (err instanceof IdleTimeoutError) return new LlmError({ ...base, kind: "timeout", detail: err.message });
  if (isSdkTimeout(err)) return new LlmError({ ...base, kind: "timeout", detail: "no response in time" });
  if (err instanceof StreamCutError) return new LlmError({ ...base, kind: "network", detail: err.message });
  if (isSdkConnection(err)) {
    return new LlmError({ ...base, kind: "network", detail: `connection failed: ${rootMessage(err)}` });
  }
  if (isSdkApiError(err)) {
    const status = err.status;
    const detail = providerMessage(err.error) ?? err.message;
    if (status === undefined) {
      // An `event: error` inside an otherwise healthy stream (e.g. overloaded_error): transient.
      return new LlmError({ ...base, kind: "server", detail });
    }
    return new LlmError({
      ...base,
      kind: kindForStatus(status),
      status,
      detail,
      retryAfterMs: retryAfterMs(err.headers),
    });
  }
  if (err instanceof SyntaxError) {
    return new LlmError({ ...base, kind: "invalid_response", detail: `unreadable response: ${err.message}` });
  }
  if (err instanceof TypeError && /terminated|fetch failed|socket|ECONN|other side closed/i.test(rootMessage(err))) {
    // undici reports a dropped body as TypeError("terminated") with the socket error as cause.
    return new LlmError({ ...base, kind: "network", detail: `connection lost: ${rootMessage(err)}` });
  }
  throw err; // a bug in our code, not a provider failure: let it surface with its stack
}

export function kindForStatus(status: number): LlmErrorKind {
  if (status === 429) return "rate_limit";
  if (status === 408) return "timeout";
  if (status === 401 || status === 403) return "auth";
  if (status >= 500) return "server"; // includes Anthropic's 529 overloaded
  return "bad_request";
}

/** retry-after-ms (OpenAI, Anthropic) wins over retry-after (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The human message inside an Anthropic ({error:{message}}) or OpenAI ({message} or {error:{message}}) body. */
function providerMessage(body: unknown): string | undefined {
  if (typeof body === "string") return body || undefined;
  if (!body || typeof body !== "object") return undefined;
  const b = body as { message?: unknown; error?: { message?: unknown } | string };
  if (typeof b.error === "object" && typeof b.error?.message === "string") return b.error.message;
  if (typeof b.error === "string") return b.error;
  if (typeof b.message === "string") return b.message;
  return undefined;
}

function rootMessage(err: unknown): string {
  let e: unknown = err;
  const parts: string[] = [];
  for (let depth = 0; e instanceof Error && depth < 4; depth++) {
    if (e.message && !parts.includes(e.message)) parts.push(e.message);
    e = e.cause;
  }
  return parts.join(": ") || String(err);
}
