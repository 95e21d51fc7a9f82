import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, sqlitePath } from "./config.ts";

/** The ConfigError thrown for `env`, or a failure when none is thrown. */
function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe("loadConfig", () => {
  it("uses the documented defaults when nothing is set", () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.host).toBe("0.0.0.0");
    expect(config.env).toBe("production");
    expect(config.dataDir).toBe(path.resolve("./data"));
    expect(path.isAbsolute(config.dataDir)).toBe(true);
    expect(config.db).toEqual({ provider: "sqlite", url: `file:${path.join(path.resolve("./data"), "argus.db")}` });
    expect(config.authSecret).toBeUndefined();
    expect(config.publicUrl).toBeUndefined();
    expect(config.log).toEqual({ level: "info", format: "json" });
    // One process: no Redis, jobs in this process, LanceDB under DATA_DIR.
    expect(config.redis).toBeUndefined();
    expect(config.lancedbUri).toBe(path.join(path.resolve("./data"), "lancedb"));
    expect(config.jobs).toEqual({ leaseMs: 30_000 });
  });

  it("reads the scale-out settings: REDIS_URL, its key prefix, the job lease and LANCEDB_URI", () => {
    const config = loadConfig({
      REDIS_URL: "redis://:pw@redis.internal:6380/2",
      REDIS_PREFIX: "argus-prod",
      JOB_LEASE_SECONDS: "5",
      LANCEDB_URI: "/mnt/shared/lancedb",
    });
    expect(config.redis).toEqual({ url: "redis://:pw@redis.internal:6380/2", prefix: "argus-prod" });
    expect(config.jobs).toEqual({ leaseMs: 5000 });
    expect(config.lancedbUri).toBe("/mnt/shared/lancedb");
    expect(loadConfig({ REDIS_URL: "rediss://cache.example.com" }).redis?.prefix).toBe("argus");
  });

  it("does not read process.env when given an explicit env object", () => {
    const config = loadConfig({ PORT: "4321" });
    expect(config.port).toBe(4321);
    expect(config.db.provider).toBe("sqlite"); // even when the test run itself targets PostgreSQL
  });

  it("treats blank values as unset and ignores stray whitespace (a blank PORT is not port 0)", () => {
    expect(loadConfig({ PORT: " " }).port).toBe(3000);
    expect(loadConfig({ PORT: " 4000 " }).port).toBe(4000);
    expect(loadConfig({ DATABASE_URL: "  " }).db.provider).toBe("sqlite");
  });

  it("treats empty strings as unset", () => {
    const config = loadConfig({ PORT: "", DATABASE_URL: "", AUTH_SECRET: "", DATA_DIR: "" });
    expect(config.port).toBe(3000);
    expect(config.db.provider).toBe("sqlite");
    expect(config.dataDir).toBe(path.resolve("./data"));
  });

  it("puts the SQLite file under DATA_DIR (resolved to an absolute path)", () => {
    const config = loadConfig({ DATA_DIR: "some/relative/dir" });
    const dir = path.resolve("some/relative/dir");
    expect(config.dataDir).toBe(dir);
    expect(config.db.provider).toBe("sqlite");
    expect(sqlitePath(config.db.url)).toBe(path.join(dir, "argus.db"));
  });

  it("accepts an explicit file: URL as SQLite", () => {
    const config = loadConfig({ DATABASE_URL: "file:/tmp/elsewhere/argus.db" });
    expect(config.db).toEqual({ provider: "sqlite", url: "file:/tmp/elsewhere/argus.db" });
  });

  it.each(["postgres://root@127.0.0.1:5432/argus", "postgresql://u:p@db.example:6543/argus?sslmode=require"])(
    "detects PostgreSQL from %s",
    (url) => {
      const config = loadConfig({ DATABASE_URL: url });
      expect(config.db).toEqual({ provider: "postgres", url });
    },
  );

  it("parses the other variables", () => {
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      NODE_ENV: "development",
      PUBLIC_URL: "https://argus.example.com/",
      AUTH_SECRET: "x".repeat(32),
      LOG_LEVEL: "silent",
    });
    expect(config.port).toBe(0);
    expect(config.host).toBe("127.0.0.1");
    expect(config.env).toBe("development");
    expect(config.publicUrl).toBe("https://argus.example.com"); // trailing slash dropped
    expect(config.authSecret).toBe("x".repeat(32));
    expect(config.log).toEqual({ level: "silent", format: "pretty" }); // pretty by default in development
  });

  it("web security settings: allowed origins (PUBLIC_URL first), trusted proxies, a preset setup token", () => {
    expect(loadConfig({})).toMatchObject({ allowedOrigins: [], trustedProxies: [], setupToken: undefined });
    const config = loadConfig({
      PUBLIC_URL: "https://Argus.example.com/argus/",
      ALLOWED_ORIGINS: " https://review.example.com:8443/ , http://localhost:3000,https://argus.example.com",
      TRUSTED_PROXIES: "10.0.0.1, 192.168.0.0/16,::1,fd00::/8",
      SETUP_TOKEN: "preset-setup-token-1234",
    });
    // Origins are what a browser sends: scheme://host[:port], lower-cased, no path, no duplicates.
    expect(config.allowedOrigins).toEqual([
      "https://argus.example.com",
      "https://review.example.com:8443",
      "http://localhost:3000",
    ]);
    expect(config.trustedProxies).toEqual(["10.0.0.1", "192.168.0.0/16", "::1", "fd00::/8"]);
    expect(config.setupToken).toBe("preset-setup-token-1234");
  });

  it("reads the git network policy, the server-folder roots and the knowledge caps", () => {
    const off = loadConfig({});
    expect(off.git).toEqual({ allowedHosts: [], useServerSshKeys: false });
    expect(off.importPathRoots).toEqual([]);
    expect(off.knowledgeUploadLimits).toEqual({});
    const config = loadConfig({
      GIT_ALLOWED_HOSTS: " gitlab.internal, 10.0.0.7,[::1] ,",
      GIT_SSH_USE_SERVER_KEYS: "true",
      IMPORT_PATH_ROOTS: `/srv/code${path.delimiter}/home/shared/repos/`,
      KNOWLEDGE_MAX_UPLOAD_MB: "2",
      KNOWLEDGE_MAX_FILES: "10",
    });
    expect(config.git).toEqual({ allowedHosts: ["gitlab.internal", "10.0.0.7", "[::1]"], useServerSshKeys: true });
    expect(config.importPathRoots).toEqual(["/srv/code", "/home/shared/repos"]);
    expect(config.knowledgeUploadLimits).toEqual({ maxUploadBytes: 2 * 1024 * 1024, maxFiles: 10 });
  });

  it("pipelines from the web app start no processes unless PIPELINES_ALLOW_PROCESSES=true", () => {
    expect(loadConfig({}).pipelines).toEqual({ allowProcesses: false });
    expect(loadConfig({ PIPELINES_ALLOW_PROCESSES: "true" }).pipelines).toEqual({ allowProcesses: true });
    expect(configError({ PIPELINES_ALLOW_PROCESSES: "yes" }).problems).toEqual([
      'PIPELINES_ALLOW_PROCESSES: expected true or false, got "yes"',
    ]);
  });

  it("outbound allow list: OUTBOUND_ALLOWED_HOSTS host:port, the deprecated PIPELINES_ALLOWED_HOSTS (with a log line), OLLAMA_URL only when set", () => {
    expect(loadConfig({}).outbound).toEqual({ allow: [] });
    expect(loadConfig({}).ollamaUrl).toBe("http://localhost:11434");
    expect(loadConfig({}).deprecations).toEqual([]);
    const c = loadConfig({
      OUTBOUND_ALLOWED_HOSTS: "llm.internal:8000, [fd00::5]:443",
      PIPELINES_ALLOWED_HOSTS: "10.0.0.7",
      OLLAMA_URL: "http://gpu-box:11434/",
    });
    expect(c.outbound.allow).toEqual(["llm.internal:8000", "[fd00::5]:443", "10.0.0.7", "gpu-box:11434"]);
    expect(c.ollamaUrl).toBe("http://gpu-box:11434");
    expect(c.deprecations[0]).toContain("PIPELINES_ALLOWED_HOSTS is deprecated");
    expect(configError({ OUTBOUND_ALLOWED_HOSTS: "llm.internal" }).problems[0]).toMatch(
      /^OUTBOUND_ALLOWED_HOSTS: expected a comma-separated list of host:port entries/,
    );
  });

  describe("bad values stop start-up with a message naming the variable and what was expected", () => {
    it("PORT=abc", () => {
      const err = configError({ PORT: "abc" });
      expect(err.problems).toHaveLength(1);
      expect(err.problems[0]).toMatch(/^PORT: expected .*port/);
      expect(err.problems[0]).toContain('got "abc"');
      expect(err.message).toContain("Invalid configuration");
      expect(err.message).toContain("PORT");
    });

    it.each(["70000", "-1", "80.5"])("PORT=%s (out of range / not whole)", (value) => {
      const err = configError({ PORT: value });
      expect(err.problems[0]).toMatch(/^PORT: expected /);
      expect(err.problems[0]).toContain(`got "${value}"`);
    });

    it("DATABASE_URL=mysql://x", () => {
      const err = configError({ DATABASE_URL: "mysql://x" });
      expect(err.problems).toHaveLength(1);
      expect(err.problems[0]).toMatch(/^DATABASE_URL: expected .*postgres:\/\//);
      expect(err.problems[0]).toContain("file:");
      expect(err.problems[0]).toContain('got "mysql://x"');
    });

    it("AUTH_SECRET too short", () => {
      const err = configError({ AUTH_SECRET: "short" });
      expect(err.problems).toHaveLength(1);
      expect(err.problems[0]).toMatch(/^AUTH_SECRET: expected at least 32 characters/);
    });

    it("a bad PUBLIC_URL, NODE_ENV and LOG_LEVEL", () => {
      expect(configError({ PUBLIC_URL: "not a url" }).problems[0]).toMatch(/^PUBLIC_URL: expected .*URL/);
      expect(configError({ NODE_ENV: "staging" }).problems[0]).toMatch(/^NODE_ENV: /);
      expect(configError({ LOG_LEVEL: "loud" }).problems[0]).toMatch(/^LOG_LEVEL: /);
    });

    it.each(["localhost:3000", "ftp://argus.example.com"])("PUBLIC_URL=%s (not an http(s) URL)", (value) => {
      const err = configError({ PUBLIC_URL: value });
      expect(err.problems[0]).toMatch(/^PUBLIC_URL: expected .*http/);
      expect(err.problems[0]).toContain(`got "${value}"`);
    });

    it.each([
      ["TRUSTED_PROXIES", "10.0.0.1,proxy.example.com", /IP addresses or CIDR/],
      ["TRUSTED_PROXIES", "10.0.0.0/33", /IP addresses or CIDR/],
      ["TRUSTED_PROXIES", "::1/129", /IP addresses or CIDR/],
      ["ALLOWED_ORIGINS", "https://ok.example.com,argus.example.com", /http\(s\) origins/],
      ["SETUP_TOKEN", "short", /at least 16 characters/],
      ["SETUP_TOKEN", "has spaces and/slashes!", /letters, digits/],
    ])("%s=%s", (name, value, expected) => {
      const err = configError({ [name]: value });
      expect(err.problems).toHaveLength(1);
      expect(err.problems[0]).toMatch(new RegExp(`^${name}: expected `));
      expect(err.problems[0]).toMatch(expected);
      expect(err.problems[0]).toContain(`got "${value}"`);
    });

    it("a git host with a scheme or port, a relative import root", () => {
      for (const value of ["https://gitlab.internal", "gitlab.internal:8443", "cafe.de:22", "a b"])
        expect(configError({ GIT_ALLOWED_HOSTS: value }).problems[0]).toMatch(
          /^GIT_ALLOWED_HOSTS: expected a comma-separated list of host names or IP addresses/,
        );
      expect(configError({ IMPORT_PATH_ROOTS: "srv/code" }).problems[0]).toMatch(
        /^IMPORT_PATH_ROOTS: expected absolute folder paths/,
      );
    });

    it("a REDIS_URL that is not a redis:// URL, a bad prefix or lease", () => {
      const err = configError({ REDIS_URL: "localhost:6379", REDIS_PREFIX: "a b", JOB_LEASE_SECONDS: "0" });
      expect(err.problems).toEqual([
        'REDIS_URL: expected a redis://host:6379 (or rediss://) URL, got "localhost:6379"',
        'REDIS_PREFIX: expected 1–64 letters, digits, _ . or -, got "a b"',
        'JOB_LEASE_SECONDS: expected at least 1 second, got "0"',
      ]);
    });

    it("reports every bad variable at once", () => {
      const err = configError({ PORT: "abc", DATABASE_URL: "mysql://x", AUTH_SECRET: "short" });
      const names = err.problems.map((p) => p.split(":")[0]).sort();
      expect(names).toEqual(["AUTH_SECRET", "DATABASE_URL", "PORT"]);
    });
  });
});
