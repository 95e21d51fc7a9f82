/**
 * What the tools of one review share: the Sandbox, the symbol index (opened on first use, closed again
 * after a quiet minute so a finished review leaves no open file behind) and the static findings
 * (loaded once: a snapshot never changes).
 */
import { openSymbolIndex, type SymbolIndex } from "../../codebase/symbols/index.ts";
import { DomainError } from "../../errors.ts";
import { Sandbox } from "../sandbox.ts";
import type { ToolContext } from "./types.ts";

export type StaticFinding = Awaited<ReturnType<ToolContext["staticFindings"]>>[number];

const INDEX_IDLE_MS = 60_000;

export class ToolEnv {
  readonly sandbox: Sandbox;
  private index: SymbolIndex | null = null;
  private idle: NodeJS.Timeout | null = null;
  private findings: Promise<StaticFinding[]> | null = null;

  constructor(
    readonly ctx: ToolContext,
    sandbox?: Sandbox,
  ) {
    this.sandbox = sandbox ?? new Sandbox(ctx.root);
  }

  /**
   * Runs fn with the snapshot's symbol index, or throws a not-found DomainError the tool turns into a
   * helpful message. The index is read-only and queries are synchronous, so sharing it is safe.
   */
  withSymbols<T>(fn: (index: SymbolIndex) => T): T {
    if (!this.ctx.symbolsPath) {
      throw new DomainError(
        "not_found",
        "This snapshot has no symbol index, so symbol tools can't answer. Use grep to find definitions and usages, and list_dir / read_file to explore.",
      );
    }
    if (!this.index) {
      try {
        this.index = openSymbolIndex(this.ctx.symbolsPath);
      } catch (err) {
        if (err instanceof DomainError)
          throw new DomainError("not_found", `${err.message} Use grep, list_dir and read_file instead.`);
        throw err;
      }
    }
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.close(), INDEX_IDLE_MS);
    this.idle.unref();
    return fn(this.index);
  }

  staticFindings(): Promise<StaticFinding[]> {
    this.findings ??= this.ctx.staticFindings().catch((err: unknown) => {
      this.findings = null; // a transient database error should not stick for the whole review
      throw err;
    });
    return this.findings;
  }

  /** Closes the symbol index now (it reopens on the next use). */
  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.index?.close();
    this.index = null;
  }
}
