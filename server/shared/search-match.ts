/**
 * How a search hit matches its query, shared by every place that shows search results (the search
 * boxes, `argus search`, the agent's search_code tool, Ask's answer without a model). The label
 * comes from the hit's calibrated relevance (server/retrieval/relevance.ts): `strong` when it looks
 * like an answer, `weak` when it only shares a word or two with the query.
 */
import { z } from "zod";

export const matchLabelSchema = z.enum(["strong", "weak"]);
export type MatchLabel = z.infer<typeof matchLabelSchema>;

/** A query has no good match when none of its hits is a strong one (or there are none). */
export function noGoodMatch(hits: readonly { match?: MatchLabel }[]): boolean {
  return !hits.some((h) => h.match === "strong");
}

/** What a user is told above the nearest hits when nothing matches well. */
export const NO_GOOD_MATCH_TEXT = "No good match";
