/** Argus sink rules for JavaScript / TypeScript / TSX. */
import { FLOW_WORDS, inSecretContext, report, type SinkRule } from "./engine.ts";
import { flowRule } from "./flow-rule.ts";
import { secretUseRule } from "./secret-use.ts";
import { sqlInjectionRule } from "./sql.ts";
import { codeVerdict, deserializationVerdict, INPUT_REACHES_SINK, INPUT_REDIRECTS, reportCommand } from "./verdicts.ts";

const importsChildProcess = (src: string) => /child_process|execa|shelljs/.test(src);

export const JS_RULES: SinkRule[] = [
  {
    id: "injection/command",
    anchor: /\b(exec|execSync|spawn|spawnSync|execFile|execFileSync)\s*\(/dg,
    when: (ctx) => importsChildProcess(ctx.source),
    check(hit) {
      const call = hit.call;
      if (
        !call ||
        !/^(?:(?:child_process|childProcess|cp|proc|require\(["']child_process["']\))\.)?\w+$/.test(call.callee)
      )
        return null;
      const [first, second, third] = call.args;
      if (!first) return null;
      const options = [second, third].find((a) => a?.type === "object");
      const shell = /^exec(?:Sync)?$/.test(call.name) || /\bshell\s*:\s*(?:true|['"`])/.test(options?.text ?? "");
      // No shell: only the program itself being chosen by the request is an injection.
      return reportCommand(hit, call, {
        shellScript: shell ? first : null,
        program: first,
        taintedConfidence: 0.8,
        noun: "command",
      });
    },
  },
  {
    id: "injection/code",
    anchor:
      /\b(eval|Function|setTimeout|setInterval|runInNewContext|runInThisContext|runInContext|compileFunction)\s*\(/dg,
    async check(hit) {
      const call = hit.call;
      if (!call) return null;
      const isEval = call.callee === "eval" || call.callee === "window.eval" || call.callee === "globalThis.eval";
      const isFunction = call.callee === "Function";
      const isTimer = /^(?:window\.|globalThis\.)?set(?:Timeout|Interval)$/.test(call.callee);
      const isVm = /^(?:vm\.)?(?:runIn\w*Context|compileFunction)$/.test(call.callee);
      if (!isEval && !isFunction && !isTimer && !isVm) return null;
      const code = isFunction ? call.args[call.args.length - 1] : call.args[0];
      if (!code) return null;
      // Timers only evaluate strings; a function argument is the normal, safe use.
      if (isTimer && !/^(?:string|template_string|binary_expression|identifier)$/.test(code.type)) return null;
      // Unknown values are ESLint's detect-eval-with-expression; we report strings assembled here.
      const { flow, verdict } = await codeVerdict(hit, code, 0.85, !isTimer);
      return report(hit, "injection/code", verdict, `${call.callee}() evaluates ${FLOW_WORDS[flow]} as code`);
    },
  },
  sqlInjectionRule({
    anchor: /\.\s*(query|execute|exec|raw|prepare|run|all|get|\$queryRawUnsafe|\$executeRawUnsafe|unsafe|sql)\s*\(/dg,
    advice: "; use parameters",
    dynamicConfidence: 0.6,
  }),
  flowRule({
    id: "injection/template",
    anchor: /\b(render|renderString|renderFile|compile|template|compileTemplate)\s*\(/dg,
    argument: (call) =>
      /^(?:ejs|pug|jade|handlebars|Handlebars|hbs|nunjucks|env|_|lodash|mustache|Mustache|dot|doT|swig|twig|Twig|eta|Eta|liquid|engine|Liquid)\.\w+$/.test(
        call.callee,
      )
        ? call.args[0]
        : undefined,
    table: INPUT_REACHES_SINK,
    message: (call, from) => `${call.callee}() compiles a template from ${from} (server-side template injection)`,
  }),
  {
    id: "deserialization/unsafe",
    anchor: /\b(unserialize|deserialize)\s*\(/dg,
    when: (ctx) => /node-serialize|serialize-to-js|funcster|\bv8\b/.test(ctx.source),
    async check(hit) {
      const call = hit.call;
      const data = call?.args[0];
      if (!call || !data) return null;
      const flow = await hit.flow.classify(data);
      return report(
        hit,
        "deserialization/unsafe",
        deserializationVerdict(flow, 0.7, false),
        `${call.callee}() deserializes ${FLOW_WORDS[flow]}: node-serialize-style formats execute code`,
      );
    },
  },
  flowRule({
    id: "path-traversal",
    anchor:
      /\b(readFile|readFileSync|createReadStream|writeFile|writeFileSync|createWriteStream|appendFile|appendFileSync|unlink|unlinkSync|rm|rmSync|readdir|readdirSync|open|openSync|sendFile|download|sendfile)\s*\(/dg,
    argument: (call) =>
      /^(?:(?:fs|fsp|fsPromises|promises|fse|fsExtra|res|response|reply|ctx)\.(?:promises\.)?)?\w+$/.test(call.callee)
        ? call.args[0]
        : undefined,
    table: INPUT_REACHES_SINK,
    message: (call, from) => `${call.callee}() opens a path from ${from} (path traversal)`,
  }),
  {
    id: "tls/verification-disabled",
    anchor: /\b(rejectUnauthorized|strictSSL)["']?\s*:\s*false\b/dg,
    inStrings: true,
    check: (hit) =>
      report(
        hit,
        "tls/verification-disabled",
        ["high", 0.9],
        `${hit.match[1]}: false disables TLS certificate verification`,
        hit.node.parent ?? hit.node,
      ),
  },
  secretUseRule({
    id: "crypto/weak-hash",
    anchor: /\b(createHash|createHmac)\s*\(\s*["'`](md5|md4|sha1|sha-1|ripemd160)["'`]/dgi,
    verdict: ["high", 0.8],
    message: (hit) =>
      `${hit.match[2]} is too weak/fast for passwords or secrets; use bcrypt/scrypt/argon2 (or SHA-256+ for tokens)`,
  }),
  {
    id: "crypto/weak-cipher",
    anchor: /\b(createCipheriv|createDecipheriv|createCipher|createDecipher)\s*\(\s*["'`]([\w-]+)["'`]/dg,
    check(hit) {
      const algorithm = hit.match[2]!;
      if (/^(?:des|des-ede|des-ede3|des3|rc4|rc2|bf|blowfish|cast)(?:-|$)|-ecb$/i.test(algorithm))
        return report(
          hit,
          "crypto/weak-cipher",
          ["high", 0.85],
          `cipher "${algorithm}" is broken or leaks patterns (DES/RC4/ECB)`,
        );
      if (/^create(?:De)?cipher$/.test(hit.match[1]!))
        return report(
          hit,
          "crypto/weak-cipher",
          ["medium", 0.7],
          `${hit.match[1]}() derives the key with MD5 and no salt or IV; use createCipheriv`,
        );
      return null;
    },
  },
  {
    id: "crypto/insecure-random",
    anchor: /\bMath\s*\.\s*(random)\s*\(\s*\)/dg,
    check(hit) {
      if (!inSecretContext(hit.node)) return null;
      return report(
        hit,
        "crypto/insecure-random",
        ["medium", 0.7],
        "Math.random() is predictable: use crypto.randomBytes / randomUUID for tokens and secrets",
        hit.node.parent ?? hit.node,
      );
    },
  },
  flowRule({
    id: "redirect/open",
    anchor: /\b(redirect)\s*\(/dg,
    // res.redirect(url) or res.redirect(status, url).
    argument: (call) => (call.args.length > 1 && call.args[0]?.type === "number" ? call.args[1] : call.args[0]),
    table: INPUT_REDIRECTS,
    message: (call, from) => `${call.callee}() redirects to a URL from ${from} (open redirect)`,
  }),
];
