/**
 * The events a run emits (spec §4.4), in UltraRAG's shapes. The engine hands them to `onEvent`; the
 * run service publishes them to room `run:<uid>` (docs/pipelines.md lists the bus payloads).
 */
export type Source = { id: number; title: string; content: string };
/** Model tokens a step's requests used (an Argus addition to UltraRAG's step_end: absent when it made none). */
export type StepTokens = { input: number; output: number };

export type PipelineEvent =
  | { type: "step_start"; name: string; depth: number }
  | { type: "step_end"; name: string; output: string; tokens?: StepTokens }
  | { type: "token"; content: string; step: string; is_final: boolean }
  | { type: "sources"; data: Source[] }
  | {
      type: "final";
      data: {
        status: "succeeded";
        answer: string | null;
        dataset_path: string | null;
        memory_path: string | null;
        is_first_turn: true;
      };
    }
  | { type: "error"; message: string };

export type EventSink = (event: PipelineEvent) => void;
