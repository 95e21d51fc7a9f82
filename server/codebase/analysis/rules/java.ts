/** Argus sink rules for Java. */
import { byFlow, FLOW_WORDS, inSecretContext, report, type SinkRule } from "./engine.ts";
import { flowRule } from "./flow-rule.ts";
import { secretUseRule } from "./secret-use.ts";
import { sqlInjectionRule } from "./sql.ts";
import { codeVerdict, deserializationVerdict, INPUT_REACHES_SINK, INPUT_REDIRECTS } from "./verdicts.ts";

export const JAVA_RULES: SinkRule[] = [
  {
    id: "injection/command",
    anchor: /\.\s*(exec)\s*\(|\bnew\s+(ProcessBuilder)\s*\(/dg,
    async check(hit) {
      const call = hit.call;
      if (!call) return null;
      if (call.isNew) {
        // new ProcessBuilder("sh", "-c", script) is a shell; otherwise only the program matters.
        const [program, flag, script] = call.args;
        if (!program) return null;
        const shell =
          /^"(?:\/bin\/)?(?:sh|bash|cmd(?:\.exe)?)"$/.test(program.text) && /^"[/-]c"$/.test(flag?.text ?? "");
        const target = shell && script ? script : program;
        const { flow, verdict } = await codeVerdict(hit, target, 0.8, shell);
        return report(hit, "injection/command", verdict, `ProcessBuilder runs a command from ${FLOW_WORDS[flow]}`);
      }
      if (!/getRuntime\(\)\.exec$|^(?:runtime|rt|r)\.exec$/i.test(call.callee)) return null;
      const command = call.args[0];
      if (!command) return null;
      const { flow, verdict } = await codeVerdict(hit, command, 0.85);
      return report(hit, "injection/command", verdict, `Runtime.exec() runs a command built from ${FLOW_WORDS[flow]}`);
    },
  },
  sqlInjectionRule({
    anchor:
      /\.\s*(executeQuery|executeUpdate|executeLargeUpdate|execute|addBatch|prepareStatement|prepareCall|createQuery|createNativeQuery|createSQLQuery|queryForObject|queryForList|queryForMap|query|update|batchUpdate)\s*\(/dg,
    advice: "; use PreparedStatement parameters",
    dynamicConfidence: 0.65,
  }),
  {
    id: "deserialization/unsafe",
    anchor: /\bnew\s+(ObjectInputStream|XMLDecoder)\s*\(|\.\s*(enableDefaultTyping|activateDefaultTyping)\s*\(/dg,
    async check(hit) {
      const call = hit.call;
      if (!call) return null;
      if (!call.isNew)
        return report(
          hit,
          "deserialization/unsafe",
          ["high", 0.7],
          `${call.name}() lets JSON choose classes to instantiate (gadget chains)`,
        );
      const data = call.args[0];
      const flow = data ? await hit.flow.classify(data) : "dynamic";
      return report(
        hit,
        "deserialization/unsafe",
        deserializationVerdict(flow, 0.7),
        `${call.callee} deserializes arbitrary classes; readObject on untrusted data runs gadget chains`,
      );
    },
  },
  {
    id: "path-traversal",
    anchor:
      /\bnew\s+(File|FileInputStream|FileOutputStream|FileReader|FileWriter|RandomAccessFile)\s*\(|\bPaths\s*\.\s*(get)\s*\(|\bPath\s*\.\s*(of)\s*\(/dg,
    async check(hit) {
      const call = hit.call;
      if (!call || call.args.length === 0) return null;
      for (const arg of call.args) {
        const flow = await hit.flow.classify(arg);
        if (flow === "source" || flow === "tainted")
          return report(
            hit,
            "path-traversal",
            byFlow(flow, INPUT_REACHES_SINK),
            `${call.callee} opens a path from ${FLOW_WORDS[flow]} (path traversal)`,
          );
      }
      return null;
    },
  },
  {
    id: "tls/verification-disabled",
    anchor:
      /\b(NoopHostnameVerifier|ALLOW_ALL_HOSTNAME_VERIFIER|TrustAllStrategy)\b|\b(setHostnameVerifier)\s*\(\s*\(?[\w\s,]*\)?\s*->\s*true\b|\bboolean\s+(verify)\s*\([^)]*SSLSession[^)]*\)\s*\{\s*return\s+true\s*;|\bvoid\s+(checkServerTrusted)\s*\([^)]*\)\s*(?:throws\s+[\w.,\s]+)?\{\s*\}/dg,
    check(hit) {
      const what = hit.match[1] ?? hit.match[2] ?? hit.match[3] ?? hit.match[4];
      const message =
        what === "checkServerTrusted"
          ? "a TrustManager whose checkServerTrusted() is empty accepts any certificate"
          : `${what} accepts any host or certificate`;
      return report(hit, "tls/verification-disabled", ["high", 0.85], message, hit.node.parent ?? hit.node);
    },
  },
  secretUseRule({
    id: "crypto/weak-hash",
    anchor: /\bMessageDigest\s*\.\s*(getInstance)\s*\(\s*"(MD5|MD4|MD2|SHA-?1)"/dgi,
    verdict: ["high", 0.8],
    message: (hit) => `${hit.match[2]} is too weak/fast for passwords or secrets; use bcrypt/scrypt/argon2/PBKDF2`,
  }),
  {
    id: "crypto/weak-cipher",
    anchor: /\bCipher\s*\.\s*(getInstance)\s*\(\s*"([^"]+)"/dg,
    check(hit) {
      const algorithm = hit.match[2]!;
      // "AES" alone means AES/ECB/PKCS5Padding on the default providers.
      if (!/^(?:DES|DESede|TripleDES|RC4|ARCFOUR|RC2|Blowfish)\b|\/ECB\/|^AES$/i.test(algorithm)) return null;
      return report(
        hit,
        "crypto/weak-cipher",
        ["high", 0.85],
        `Cipher "${algorithm}" is broken or uses ECB; use AES/GCM/NoPadding`,
      );
    },
  },
  {
    id: "crypto/insecure-random",
    anchor: /\bnew\s+(Random)\s*\(|\bMath\s*\.\s*(random)\s*\(/dg,
    check(hit) {
      const node = hit.call?.node ?? hit.node;
      if (!inSecretContext(node)) return null;
      return report(
        hit,
        "crypto/insecure-random",
        ["medium", 0.7],
        "java.util.Random / Math.random() is predictable: use SecureRandom for tokens and secrets",
      );
    },
  },
  flowRule({
    id: "redirect/open",
    anchor: /\.\s*(sendRedirect)\s*\(/dg,
    argument: (call) => call.args[0],
    table: INPUT_REDIRECTS,
    message: (_call, from) => `sendRedirect() to a URL from ${from} (open redirect)`,
  }),
];
