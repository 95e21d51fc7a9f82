/** A Python call as the model table (`py/calls.ts`, `py/settings.ts`) sees it, and its keyword arguments. */
import type { ModelTable } from "../models.ts";
import type { Val } from "../values.ts";
import type { PyHost } from "./host.ts";
import type { PyCall } from "./model.ts";

export interface PySite extends PyCall {
  arg0: Val;
}

export type PyTable = ModelTable<PyHost, PySite>;

/** A keyword argument's value, and its text as written. */
export const kw = (s: PySite, name: string) => s.kwargs.get(name);
export const kwText = (s: PySite, name: string) => s.kwargNodes.get(name)?.text ?? "";
