/**
 * What every `argus` command shares: a usage error (exit 2, printed with the command's help) versus
 * any other failure (exit 1, one line).
 */
export class UsageError extends Error {}

/** node:util parseArgs's own errors (unknown option, missing value…) are usage errors too. */
const isParseArgsError = (e: unknown) =>
  typeof (e as { code?: unknown })?.code === "string" && (e as { code: string }).code.startsWith("ERR_PARSE_ARGS_");

export async function runCommand(
  label: string,
  help: string,
  err: (s: string) => void,
  body: () => Promise<number>,
): Promise<number> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof UsageError || isParseArgsError(e)) {
      err(`${label}: ${(e as Error).message}\n\n${help}\n`);
      return 2;
    }
    err(`${label}: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
