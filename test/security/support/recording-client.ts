/** A tRPC test client that keeps every response body it receives, for a suite's final canary sweep. */
import { Client, type Reply } from "../../helpers/server.ts";

export class RecordingClient extends Client {
  static bodies: unknown[] = [];
  override async query<T = unknown>(p: string, input?: unknown): Promise<Reply<T>> {
    const r = await super.query<T>(p, input);
    RecordingClient.bodies.push({ p, body: r.body });
    return r;
  }
  override async mutate<T = unknown>(p: string, input?: unknown): Promise<Reply<T>> {
    const r = await super.mutate<T>(p, input);
    RecordingClient.bodies.push({ p, body: r.body });
    return r;
  }
}
