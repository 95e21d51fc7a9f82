/**
 * The server registry: what a `servers:` entry names, and opening one instance per alias.
 *
 * An entry (relative to the run's directory, as UltraRAG resolves it) names:
 *   `servers/<name>`         → Argus's built-in `<name>` server, with `servers/<name>/parameter.yaml`
 *                              as its parameters when that file exists (else the built-in defaults).
 *                              If that parameter.yaml has a `path:` key, the path decides (below).
 *   `argus:servers/<name>`   → the built-in `<name>` explicitly (what `build` writes as `path:`).
 *   `http(s)://…`            → an external MCP server over Streamable HTTP.
 *   `stdio:<command> [args]` → an external MCP server started as a child process (stdio).
 *   a `path:` ending in `.py` → UltraRAG's own Python server, started as `python <path>` over stdio.
 * External servers need an `external` resolver (server/pipelines/mcp's createMcpServer); without one
 * they are reported as unknown servers with a hint.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { normalizeServerPath, type ServerCatalog } from "./dsl/catalog.ts";
import type { ServerEntry } from "./dsl/ast.ts";
import type { ServerSignature } from "./dsl/schema.ts";
import { BUILTIN_SERVERS } from "./servers/builtins.ts";
import type { PipelineServer } from "./servers/contract.ts";
import type { BuiltinFactory } from "./servers/define.ts";
import { McpSpecError, splitCommandLine, STDIO_PREFIX } from "./mcp/spec.ts";

export type ExternalTransport =
  { transport: "http"; url: string } | { transport: "stdio"; command: string; args: string[] };

/** Everything an MCP client needs to open one alias's external server. */
export type ExternalServerSpec = ExternalTransport & {
  alias: string;
  /** The `servers:` value as written. */
  path: string;
  /** Directory the process starts in / relative paths resolve against. */
  cwd: string;
  /** `<dir>/parameter.yaml` when present, for `$param` defaults and auto-`$`. */
  parameters: Record<string, unknown>;
};

/** Plug point for external MCP servers: `external: (spec) => createMcpServer(spec)`. */
export type ExternalResolver = (spec: ExternalServerSpec) => PipelineServer | Promise<PipelineServer>;

export type ServerTarget =
  | { kind: "builtin"; name: string; label: string; parameterFile?: string; parameters?: Record<string, unknown> }
  | {
      kind: "external";
      transport: ExternalTransport;
      label: string;
      parameterFile?: string;
      parameters: Record<string, unknown>;
    };

export interface OpenedServer {
  alias: string;
  path: string;
  target: ServerTarget;
  server: PipelineServer;
  signature: ServerSignature;
}

export interface RegistryOptions {
  /** The run's directory (UltraRAG: the CWD). */
  cwd: string;
  /** Extra or replacement built-ins (tests, benchmarks); merged over BUILTIN_SERVERS. */
  builtins?: Record<string, BuiltinFactory>;
  external?: ExternalResolver;
  /**
   * Set: servers that would start a process on this machine (`stdio:` commands, UltraRAG `.py`
   * paths) are refused before anything opens, with this sentence as the reason (the web app's policy,
   * server/pipelines/process-policy.ts). Unset: UltraRAG's behaviour (the CLI).
   */
  refuseProcesses?: string;
}

export class ServerResolveError extends Error {
  /** Names the server reference or file the pipeline got wrong (server/errors.ts isUserFacing). */
  get userFacing(): boolean {
    return true;
  }
}

const MAX_PARAMETER_BYTES = 1024 * 1024;

/** `builtin:` label written to `path:` by build, e.g. `argus:servers/sayhello`. */
export const builtinLabel = (name: string) => `argus:servers/${name}`;

/** The words of a `stdio:` command line, split as the MCP layer splits them (quotes, escapes). */
function commandWords(line: string): string[] {
  try {
    return splitCommandLine(line);
  } catch (err) {
    throw new ServerResolveError(err instanceof McpSpecError ? err.message : String(err));
  }
}

/** Reads a server's parameter.yaml; a broken file is an error naming it, never silently `{}`. */
export function readParameterFile(file: string): Record<string, unknown> {
  const size = statSync(file).size;
  if (size > MAX_PARAMETER_BYTES)
    throw new ServerResolveError(
      `${file} is ${size} bytes, over the ${MAX_PARAMETER_BYTES}-byte limit for a parameter file`,
    );
  let data: unknown;
  try {
    data = parseYaml(readFileSync(file, "utf8"), { maxAliasCount: 100 });
  } catch (err) {
    throw new ServerResolveError(
      `${file} is not valid YAML: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`,
    );
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== "object" || Array.isArray(data))
    throw new ServerResolveError(`${file} must be a mapping of parameter names to values`);
  return data as Record<string, unknown>;
}

export class ServerRegistry {
  readonly cwd: string;
  private readonly builtins: Record<string, BuiltinFactory>;

  constructor(private readonly options: RegistryOptions) {
    this.cwd = path.resolve(options.cwd);
    this.builtins = { ...BUILTIN_SERVERS, ...options.builtins };
  }

  builtinNames(): string[] {
    return Object.keys(this.builtins).sort();
  }

  /** What `path` names; undefined when nothing matches. Throws ServerResolveError for a broken parameter.yaml. */
  resolve(serverPath: string): ServerTarget | undefined {
    const p = normalizeServerPath(serverPath);
    const direct = this.direct(p, undefined, {});
    if (direct) return direct;
    const dir = path.resolve(this.cwd, p);
    const parameterFile = path.join(dir, "parameter.yaml");
    const hasFile = existsSync(parameterFile);
    const parameters = hasFile ? readParameterFile(parameterFile) : undefined;
    const declared = parameters?.path;
    if (typeof declared === "string" && declared.trim() !== "") {
      const viaPath = this.direct(normalizeServerPath(declared), parameterFile, parameters!);
      if (viaPath) return viaPath;
      if (declared.endsWith(".py")) {
        return {
          kind: "external",
          transport: { transport: "stdio", command: "python", args: [declared] },
          label: declared,
          parameterFile,
          parameters: parameters!,
        };
      }
    }
    const name = path.basename(p);
    if (this.builtins[name])
      return {
        kind: "builtin",
        name,
        label: builtinLabel(name),
        ...(hasFile ? { parameterFile, parameters: parameters! } : {}),
      };
    return undefined;
  }

  private direct(
    p: string,
    parameterFile: string | undefined,
    parameters: Record<string, unknown>,
  ): ServerTarget | undefined {
    if (/^https?:\/\//i.test(p))
      return {
        kind: "external",
        transport: { transport: "http", url: p },
        label: p,
        ...(parameterFile ? { parameterFile } : {}),
        parameters,
      };
    if (p.startsWith(STDIO_PREFIX)) {
      const [command, ...args] = commandWords(p.slice(STDIO_PREFIX.length));
      if (!command) throw new ServerResolveError(`\`${p}\` names no command; write e.g. \`stdio:node my-server.js\``);
      return {
        kind: "external",
        transport: { transport: "stdio", command, args },
        label: p,
        ...(parameterFile ? { parameterFile } : {}),
        parameters,
      };
    }
    const m = /^argus:(?:servers\/)?([A-Za-z0-9_-]+)$/.exec(p);
    if (m) {
      const name = m[1]!;
      if (!this.builtins[name])
        throw new ServerResolveError(`\`${p}\` names no built-in server; built-ins: ${this.builtinNames().join(", ")}`);
      if (parameterFile) return { kind: "builtin", name, label: builtinLabel(name), parameterFile, parameters };
      // `argus:servers/x` written in a pipeline: the parameters still live in servers/x/parameter.yaml.
      const file = path.join(this.cwd, "servers", name, "parameter.yaml");
      return existsSync(file)
        ? { kind: "builtin", name, label: builtinLabel(name), parameterFile: file, parameters: readParameterFile(file) }
        : { kind: "builtin", name, label: builtinLabel(name) };
    }
    return undefined;
  }

  /** Throws when the target would start a process and this registry refuses processes. */
  private checkProcessPolicy(alias: string, target: ServerTarget): void {
    if (!this.options.refuseProcesses || target.kind !== "external" || target.transport.transport !== "stdio") return;
    const line = [target.transport.command, ...target.transport.args].join(" ");
    throw new ServerResolveError(
      `Server \`${target.label}\` for alias \`${alias}\` would start a process on the server (\`${line.length > 80 ? `${line.slice(0, 80)}…` : line}\`): ${this.options.refuseProcesses}`,
    );
  }

  /** Opens one server instance for an alias (each alias its own instance, as UltraRAG's processes). */
  async open(alias: string, serverPath: string, resolved?: ServerTarget): Promise<OpenedServer> {
    const target = resolved ?? this.resolve(serverPath);
    if (!target)
      throw new ServerResolveError(
        `Unknown server \`${serverPath}\` for alias \`${alias}\`; built-ins: ${this.builtinNames()
          .map((n) => `servers/${n}`)
          .join(", ")}`,
      );
    if (!resolved) this.checkProcessPolicy(alias, target);
    let server: PipelineServer;
    if (target.kind === "builtin") {
      server = this.builtins[target.name]!(target.parameters ? { parameters: target.parameters } : {});
    } else {
      if (!this.options.external)
        throw new ServerResolveError(
          `Server \`${serverPath}\` for alias \`${alias}\` is an external MCP server, but this run has no MCP client configured`,
        );
      server = await this.options.external({
        ...target.transport,
        alias,
        path: serverPath,
        cwd: this.cwd,
        parameters: target.parameters,
      });
    }
    let signature: ServerSignature;
    try {
      signature = await server.signature();
    } catch (err) {
      await server.close().catch(() => undefined);
      throw err;
    }
    // An external server does not know its parameter.yaml; the directory's file supplies the defaults.
    if (target.kind === "external" && Object.keys(signature.parameters).length === 0)
      signature = { ...signature, parameters: target.parameters };
    return { alias, path: serverPath, target, server, signature };
  }

  /**
   * Opens the aliases a run needs. Built-ins are opened for every alias (cheap, no side effects);
   * external servers only for aliases some step uses (UltraRAG does not start unused servers).
   * On failure every server opened so far is closed again.
   */
  async openAll(entries: readonly ServerEntry[], used?: ReadonlySet<string>): Promise<Map<string, OpenedServer>> {
    const resolved = entries.map((e) => {
      try {
        const target = this.resolve(e.path);
        if (target) this.checkProcessPolicy(e.alias, target);
        return { e, target };
      } catch (err) {
        if (err instanceof ServerResolveError && !err.message.includes(`alias \`${e.alias}\``))
          throw new ServerResolveError(`${err.message} (alias \`${e.alias}\`)`);
        throw err;
      }
    });
    const opened = new Map<string, OpenedServer>();
    try {
      for (const { e, target } of resolved) {
        if (!target) continue; // reported by validation as unknown_server
        const needed = used ? used.has(e.alias) : true;
        if (target.kind === "external" && !needed) continue;
        opened.set(e.alias, await this.open(e.alias, e.path, target));
      }
    } catch (err) {
      await closeAll(opened);
      throw err;
    }
    return opened;
  }

  /** The dsl ServerCatalog over opened servers (by path); unopened external paths validate as empty servers. */
  catalog(opened: ReadonlyMap<string, OpenedServer>, entries: readonly ServerEntry[]): ServerCatalog {
    const byPath = new Map<string, ServerSignature>();
    for (const o of opened.values()) byPath.set(normalizeServerPath(o.path), o.signature);
    for (const e of entries) {
      const key = normalizeServerPath(e.path);
      if (byPath.has(key)) continue;
      const target = this.resolve(e.path);
      if (target?.kind === "external" && this.options.external)
        byPath.set(key, { tools: {}, prompts: {}, parameters: target.parameters });
    }
    return {
      lookup: (p) => byPath.get(normalizeServerPath(p)),
      paths: () => [...new Set([...byPath.keys(), ...this.builtinNames().map((n) => `servers/${n}`)])],
    };
  }
}

export async function closeAll(opened: ReadonlyMap<string, OpenedServer>): Promise<void> {
  await Promise.all([...opened.values()].map((o) => o.server.close().catch(() => undefined)));
}

export const createServerRegistry = (options: RegistryOptions) => new ServerRegistry(options);
