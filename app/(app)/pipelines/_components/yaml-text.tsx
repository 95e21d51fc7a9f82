"use client";
/** A value as YAML text (no line folding), in a chunk of its own: the YAML library is not small. */
import { stringify } from "yaml";

export function YamlText({ value }: { value: unknown }) {
  return <>{stringify(value, { lineWidth: 0 })}</>;
}
