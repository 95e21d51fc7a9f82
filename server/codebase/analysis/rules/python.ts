/** Argus sink rules for Python. */
import { byFlow, FLOW_WORDS, inSecretContext, report, type SinkRule } from "./engine.ts";
import { flowRule } from "./flow-rule.ts";
import { secretUseRule } from "./secret-use.ts";
import { sqlInjectionRule } from "./sql.ts";
import { codeVerdict, deserializationVerdict, INPUT_REACHES_SINK, INPUT_REDIRECTS, reportCommand } from "./verdicts.ts";

const SAFE_YAML_LOADERS = /\b(?:SafeLoader|CSafeLoader|BaseLoader)\b/;

export const PYTHON_RULES: SinkRule[] = [
  {
    id: "injection/command",
    anchor: /\b(system|popen|call|run|Popen|check_output|check_call|getoutput|getstatusoutput)\s*\(/dg,
    check(hit) {
      const call = hit.call;
      const command = call?.args[0];
      if (!call || !command) return null;
      const alwaysShell =
        /^(?:os\.(?:system|popen)|commands\.(?:getoutput|getstatusoutput)|subprocess\.(?:getoutput|getstatusoutput))$/.test(
          call.callee,
        );
      const subprocess =
        /^(?:subprocess\.)?(?:call|run|Popen|check_output|check_call)$/.test(call.callee) &&
        (call.callee.startsWith("subprocess.") || /\bfrom\s+subprocess\s+import\b/.test(hit.ctx.source));
      if (!alwaysShell && !subprocess) return null;
      const shell = alwaysShell || /^True$/.test(call.kwargs.get("shell")?.text ?? "");
      // An argument list without a shell is the safe form, unless the program itself comes from input.
      const listed = command.type === "list" || command.type === "tuple";
      return reportCommand(hit, call, {
        shellScript: shell ? command : null,
        program: listed ? (command.namedChildren[0] ?? undefined) : command,
        taintedConfidence: 0.85,
        noun: "command",
      });
    },
  },
  sqlInjectionRule({
    anchor: /\.\s*(execute|executemany|executescript|raw|extra|text|exec_driver_sql)\s*\(|\b(text)\s*\(/dg,
    advice: " (f-string, % or +); pass parameters instead",
    dynamicConfidence: 0.65,
  }),
  {
    id: "injection/template",
    anchor: /\b(render_template_string|Template|from_string)\s*\(/dg,
    async check(hit) {
      const call = hit.call;
      const template = call?.args[0];
      if (!call || !template) return null;
      if (
        !/^(?:flask\.)?render_template_string$|^(?:jinja2\.|mako\.template\.)?Template$|\.from_string$/.test(
          call.callee,
        )
      )
        return null;
      const flow = await hit.flow.classify(template);
      const dynamic = call.name === "render_template_string" && (await hit.flow.isBuiltString(template));
      const verdict = byFlow(flow, {
        source: ["high", 0.9],
        tainted: ["high", 0.85],
        dynamic: dynamic ? ["medium", 0.55] : null,
      });
      return report(
        hit,
        "injection/template",
        verdict,
        `${call.callee}() compiles a template from ${FLOW_WORDS[flow]} (server-side template injection)`,
      );
    },
  },
  {
    id: "injection/code",
    anchor: /\b(eval|exec)\s*\(/dg,
    async check(hit) {
      const call = hit.call;
      const code = call?.args[0];
      if (!call || !code || (call.callee !== "eval" && call.callee !== "exec")) return null;
      const { flow, verdict } = await codeVerdict(hit, code, 0.85);
      return report(hit, "injection/code", verdict, `${call.callee}() evaluates ${FLOW_WORDS[flow]} as code`);
    },
  },
  {
    id: "deserialization/unsafe",
    anchor: /\b(loads?|load_all|unsafe_load|unsafe_load_all|full_load|decode|read_pickle|Unpickler)\s*\(/dg,
    async check(hit) {
      const call = hit.call;
      if (!call) return null;
      const data = call.args[0];
      let why: string | null = null;
      if (
        /^(?:pickle|cPickle|_pickle|dill|cloudpickle|joblib|marshal|shelve|jsonpickle)\.(?:loads?|decode|Unpickler)$|^(?:pd|pandas)\.read_pickle$/.test(
          call.callee,
        )
      )
        why = `${call.callee}() can execute code embedded in the data`;
      else if (/^(?:yaml|ruamel\.yaml)\.(?:unsafe_load|unsafe_load_all|full_load)$/.test(call.callee))
        why = `${call.callee}() constructs arbitrary Python objects`;
      else if (/^yaml\.(?:load|load_all)$/.test(call.callee)) {
        const loader = call.kwargs.get("Loader")?.text ?? call.args[1]?.text ?? "";
        if (SAFE_YAML_LOADERS.test(loader)) return null;
        why = `${call.callee}() without SafeLoader constructs arbitrary Python objects; use yaml.safe_load`;
      }
      if (!why) return null;
      const flow = data ? await hit.flow.classify(data) : "dynamic";
      return report(hit, "deserialization/unsafe", deserializationVerdict(flow, 0.75), why);
    },
  },
  flowRule({
    id: "path-traversal",
    anchor: /\b(open|send_file|FileResponse|remove|unlink|rmtree|read_text|read_bytes|write_text|write_bytes)\s*\(/dg,
    argument: (call) =>
      /^(?:open|io\.open|codecs\.open|(?:flask\.)?send_file|FileResponse|os\.(?:remove|unlink)|shutil\.rmtree)$/.test(
        call.callee,
      )
        ? call.args[0]
        : undefined,
    table: INPUT_REACHES_SINK,
    message: (call, from) =>
      `${call.callee}() opens a path from ${from} (path traversal); use send_from_directory / safe_join`,
  }),
  {
    id: "tls/verification-disabled",
    anchor:
      /\b(verify)\s*=\s*False\b|\b(_create_unverified_context)\b|\b(check_hostname)\s*=\s*False\b|\b(CERT_NONE)\b/dg,
    check(hit) {
      const what = hit.match[1] ?? hit.match[2] ?? hit.match[3] ?? hit.match[4];
      if (what === "verify" && hit.node.parent?.type !== "keyword_argument" && hit.node.type !== "keyword_argument")
        return null;
      return report(
        hit,
        "tls/verification-disabled",
        ["high", what === "check_hostname" ? 0.75 : 0.9],
        `${what} disables TLS certificate verification`,
        hit.node.parent ?? hit.node,
      );
    },
  },
  {
    id: "crypto/weak-hash",
    anchor: /\bhashlib\s*\.\s*(md5|sha1|md4|new)\s*\(/dg,
    check(hit) {
      const call = hit.call;
      if (!call) return null;
      if (call.name === "new" && !/^["'](?:md5|sha1|md4)["']/i.test(call.args[0]?.text ?? "")) return null;
      if (!inSecretContext(call.node)) return null;
      return report(
        hit,
        "crypto/weak-hash",
        ["high", 0.8],
        `${call.callee}() is too weak/fast for passwords or secrets; use hashlib.scrypt / bcrypt / argon2`,
      );
    },
  },
  {
    id: "crypto/weak-cipher",
    anchor:
      /\b(DES|DES3|ARC4|ARC2|Blowfish|CAST)\s*\.\s*new\s*\(|\b(MODE_ECB)\b|\balgorithms\s*\.\s*(TripleDES|ARC4|Blowfish|CAST5|IDEA)\b|\bmodes\s*\.\s*(ECB)\b/dg,
    check: (hit) =>
      report(
        hit,
        "crypto/weak-cipher",
        ["high", 0.85],
        `${hit.match[1] ?? hit.match[2] ?? hit.match[3] ?? hit.match[4]} is broken or leaks patterns; use AES-GCM`,
        hit.node.parent ?? hit.node,
      ),
  },
  secretUseRule({
    id: "crypto/insecure-random",
    anchor: /\brandom\s*\.\s*(random|randint|choice|choices|randrange|getrandbits|sample)\s*\(/dg,
    verdict: ["medium", 0.7],
    message: (hit) => `random.${hit.match[1]}() is predictable: use the secrets module for tokens and passwords`,
  }),
  flowRule({
    id: "redirect/open",
    anchor: /\b(redirect|HttpResponseRedirect|RedirectResponse)\s*\(/dg,
    argument: (call) => call.args[0],
    table: INPUT_REDIRECTS,
    message: (call, from) => `${call.callee}() redirects to a URL from ${from} (open redirect)`,
  }),
];
