/**
 * One sentence per built-in tool and prompt, shown when a node of the pipeline graph is clicked and
 * in the step picker. Keyed `server.tool`; a tool missing here gets a sentence built from its
 * signature (tested: every built-in has one).
 */
export const TOOL_DOCS: Readonly<Record<string, string>> = {
  "benchmark.get_data":
    "Loads the data set (.jsonl or .json) and maps its fields to questions and golden answers (key_map), optionally shuffled and limited.",
  "corpus.build_text_corpus":
    "Parses a document or a folder of documents (.txt, .md, .html, .pdf, .docx) into a JSON-lines corpus of cleaned text.",
  "corpus.build_image_corpus":
    "Renders PDF pages as images for a multimodal corpus (not available in Argus: it says why).",
  "corpus.mineru_parse": "Runs MinerU over documents (not available in Argus: it says why).",
  "corpus.build_mineru_corpus":
    "Builds text and image corpora from MinerU output (not available in Argus: it says why).",
  "corpus.chunk_documents":
    "Splits the corpus into chunks by tokens, sentences or recursively, with overlap, optionally prefixed by the title.",
  "custom.output_extract_from_boxed":
    "Takes the content of the last \\boxed{…} in each answer as the prediction (the whole answer when there is none).",
  "custom.search_r1_query_extract": "Extracts the last <search> query from each answer (Search-R1).",
  "custom.r1_searcher_query_extract":
    "Extracts the query between the begin/end-of-query markers from each answer (R1-Searcher).",
  "custom.iterretgen_nextquery": "Builds the next query as the question followed by the current answer (IterRetGen).",
  "custom.ircot_get_first_sent": "Keeps the first sentence of each reasoning step as the next query (IRCoT).",
  "custom.ircot_extract_ans": 'Takes what follows "so the answer is" as the prediction (IRCoT).',
  "custom.search_o1_init_list":
    "Starts the empty per-item lists Search-o1 accumulates sub-queries, reasoning and findings in.",
  "custom.search_o1_query_extract": "Extracts the last search query Search-o1's model asked for.",
  "custom.search_o1_reasoning_extract": "Keeps the reasoning before Search-o1's search query.",
  "custom.search_o1_extract_final_information": "Keeps the final information Search-o1's refinement step found.",
  "custom.search_o1_combine_list": "Appends each item's new sub-query and reasoning to its Search-o1 lists.",
  "custom.search_o1_combine_final_information": "Appends each item's newly found information to its Search-o1 list.",
  "custom.surveycpm_init_citation_registry": "Resets SurveyCPM's citation numbering (passes the instructions through).",
  "custom.surveycpm_state_init": "Starts each item's SurveyCPM state: an empty survey, the cursor, step counters.",
  "custom.surveycpm_parse_search_response":
    "Reads the search keywords from SurveyCPM's model answer (and whether it parsed).",
  "custom.surveycpm_process_passages": "Picks a fair share of distinct passages from each keyword's search.",
  "custom.surveycpm_process_passages_with_citation":
    "Picks passages and numbers them with citation ids kept across steps.",
  "custom.surveycpm_after_init_plan": "Turns the model's outline into the survey's sections and sets the cursor.",
  "custom.surveycpm_after_write": "Writes the model's text into the section under the cursor and moves on.",
  "custom.surveycpm_after_extend": "Applies the model's extension of the outline (or notes that it is finished).",
  "custom.surveycpm_update_state": "Moves each item's SurveyCPM state machine to its next state and counts the step.",
  "custom.surveycpm_check_completion": "Ends items that reached the step limit.",
  "custom.surveycpm_format_output": "Formats each finished survey as Markdown with numbered headings and citations.",
  "custom.merge_passages": "Appends newly retrieved passages to each item's passages.",
  "custom.evisrag_output_extract_from_special": "Takes the text inside <answer>…</answer> as the prediction.",
  "custom.assign_citation_ids": "Numbers each item's passages [1], [2] … so answers can cite them.",
  "custom.init_citation_registry": "Resets the citation numbering kept across steps (passes the questions through).",
  "custom.assign_citation_ids_stateful": "Numbers passages with ids that stay the same across rounds for each item.",
  "evaluation.evaluate":
    "Scores predictions against golden answers (accuracy, EM, F1, ROUGE …): per item and on average; writes the results file.",
  "evaluation.evaluate_trec":
    "Scores a TREC ranking run against relevance judgements: MRR, MAP, nDCG@k, P@k, recall@k.",
  "evaluation.evaluate_trec_pvalue":
    "Compares two TREC runs with a paired permutation test: each metric's means, difference and p-value.",
  "generation.generation_init": "Connects to the model (an OpenAI-compatible server) with its sampling parameters.",
  "generation.generate": "Sends each prompt to the model and keeps its answer (streamed as tokens in a live run).",
  "generation.multimodal_generate": "Sends each prompt with its images to a vision model.",
  "generation.multiturn_generate": "Continues a chat history with the model.",
  "generation.vllm_shutdown": "Frees the local model after a run (called automatically).",
  "memory.get_global_memory": "Reads the user's long-term memory file.",
  "memory.save_memory":
    "Appends the question and answer to the user's project memory (done automatically after a run).",
  "reranker.reranker_init":
    "Sets up the reranker (BM25 over the candidates offline, a /rerank endpoint or the chat model).",
  "reranker.reranker_rerank": "Re-orders each query's retrieved passages and keeps the best top_k.",
  "retriever.retriever_init":
    "Loads the corpus and sets up the retriever (BM25, hash or local embeddings, or an embeddings endpoint).",
  "retriever.retriever_embed": "Embeds every corpus passage and saves the vectors.",
  "retriever.retriever_index": "Builds the vector index from the saved embeddings.",
  "retriever.retriever_search":
    "Finds the top_k passages for each query by vector similarity (a kb:<name> collection: the knowledge base's search); `output: {ret_psg: ret_psg, ret_scores: ret_scores}` also keeps each passage's score (a knowledge base's: its relevance, 0–1).",
  "retriever.retriever_batch_search": "Vector search for several queries per item.",
  "retriever.retriever_project_memory_search": "Searches the user's project memory for each query.",
  "retriever.bm25_index": "Builds the BM25 full-text index over the corpus.",
  "retriever.bm25_search":
    "Finds the top_k passages for each query with BM25; `output: {ret_psg: ret_psg, ret_scores: ret_scores}` also keeps their BM25 scores.",
  "retriever.retriever_deploy_search": "Asks a deployed retrieval server for each query's passages.",
  "retriever.retriever_websearch": "Searches the web (Tavily, Exa or ZhipuAI) for each query; needs an API key.",
  "retriever.retriever_batch_websearch": "Web search for several queries per item; needs an API key.",
  "router.route1": "Routes items whose query is 1 to state1, the rest to state2.",
  "router.route2": "Routes every item to state2.",
  "router.ircot_check_end": 'complete once the reasoning says "so the answer is", else incomplete (IRCoT).',
  "router.search_r1_check": "complete once the model ends its turn, else incomplete (Search-R1).",
  "router.r1_searcher_check":
    "complete once the model ends its turn or gives </answer>, else incomplete (R1-Searcher).",
  "router.webnote_check_page":
    'incomplete while the note page still has parts "to be filled", else complete (WebNote).',
  "router.check_model_state": "continue while the answer asks for a <search>, else stop.",
  "router.search_o1_check": "retrieve while Search-o1's model asks for a search, else stop.",
  "router.surveycpm_state_router": "Routes each item by its SurveyCPM agent state.",
  "sayhello.greet": "Says hello to $name.",
  "prompt.qa_boxed": "Asks the question, answer in \\boxed{}.",
  "prompt.qa_with_memory": "Asks the question with the user's global and project memory.",
  "prompt.qa_boxed_multiple_choice": "Asks a multiple-choice question, answer in \\boxed{}.",
  "prompt.qa_rag_boxed": "Asks the question over the retrieved passages, answer in \\boxed{}.",
  "prompt.qa_rag_with_memory": "Asks the question over the passages and the user's memory.",
  "prompt.qa_rag_boxed_multiple_choice": "A multiple-choice question over the retrieved passages.",
  "prompt.RankCoT_kr": "Asks the model to refine the retrieved knowledge into reasoning (RankCoT).",
  "prompt.RankCoT_qa": "Asks the question with the refined reasoning (RankCoT).",
  "prompt.ircot_next_prompt": "Asks for the next reasoning sentence over all passages so far (IRCoT).",
  "prompt.webnote_gen_plan": "Asks for a research plan (WebNote).",
  "prompt.webnote_init_page": "Asks for the note page's first draft (WebNote).",
  "prompt.webnote_gen_subq": "Asks for the next sub-question to research (WebNote).",
  "prompt.webnote_fill_page": "Asks to fill the page from the passages found (WebNote).",
  "prompt.webnote_gen_answer": "Asks for the final answer from the note page (WebNote).",
  "prompt.search_r1_gen": "Continues the Search-R1 conversation with the passages found.",
  "prompt.r1_searcher_gen": "Continues the R1-Searcher conversation with the passages found.",
  "prompt.search_o1_init": "Starts Search-o1's reasoning.",
  "prompt.search_o1_reasoning_indocument": "Asks Search-o1's model to refine what the documents say for its query.",
  "prompt.search_o1_insert": "Inserts Search-o1's queries and findings into the reasoning.",
  "prompt.gen_subq": "Asks for a sub-question over the passages (needs gen_subq_template).",
  "prompt.check_passages": "Asks whether the passages suffice (needs check_psg_template).",
  "prompt.evisrag_vqa": "A visual question over retrieved page images (needs evisrag_template).",
  "prompt.surveycpm_search": "SurveyCPM: asks what to search next.",
  "prompt.surveycpm_init_plan": "SurveyCPM: asks for the survey's outline.",
  "prompt.surveycpm_write": "SurveyCPM: asks to write the current section.",
  "prompt.surveycpm_extend_plan": "SurveyCPM: asks to extend the outline.",
};

/** The sentence for a tool, or one built from what it reads and writes. */
export function toolDoc(server: string, tool: string, io: { input: Record<string, string>; output: string[] }): string {
  const known = TOOL_DOCS[`${server}.${tool}`];
  if (known) return known;
  const reads = Object.keys(io.input);
  return `Reads ${reads.length ? reads.join(", ") : "nothing"}; writes ${io.output.length ? io.output.join(", ") : "nothing"}.`;
}
