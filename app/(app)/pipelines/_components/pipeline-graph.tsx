"use client";
/**
 * The pipeline's steps drawn with React Flow, laid out top to bottom by dagre: a card per tool step
 * (alias.tool, what it reads ← and writes →), a pill per loop (its body below it, a dashed "repeat"
 * edge back), a diamond-marked card per branch router (one labelled edge per state), and the end.
 * Nodes are focusable: Tab to one, Enter selects it; a click or Enter tells the page which.
 *
 * The selection is the page's alone (`selected` in, `onSelect` out, only on a click or a key): React
 * Flow's own selection is off. Echoing it back (onSelectionChange) raced the page's: React Flow calls
 * that handler on every render with the nodes it last stored, so for one render after the page picked
 * node B it still reported A, the page went back to A, and the two ping-ponged.
 *
 * Every node's size is known before it is drawn (heightOf: the card's rows have fixed heights), so
 * React Flow shows the nodes in the first frame instead of hiding them until it has measured each,
 * and the layout needs no measuring pass. dagre lays the graph out once per shape (typing that keeps
 * the shape keeps the positions).
 *
 * Teammates editing the same draft show on the step each has selected (their colour as an outline, a
 * chip with their name), from the shared draft's awareness: `watchers` in, nothing out.
 *
 * The container says what state the drawing is in, for tests and anything else that must wait:
 * `data-layout="ready"` once the current graph's nodes are measured and fitted into view (a new graph
 * shape is fitted again, so an added step is never off-screen), `data-selected` on the selected card.
 */
import dagre from "@dagrejs/dagre";
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  useReactFlow,
  type Edge,
  type FitViewOptions,
  type Node,
  type NodeProps,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { GitBranch, Repeat, Square } from "lucide-react";
import { useTheme } from "next-themes";
import { memo, useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { cx } from "@/app/_components/ui.tsx";
import type { GraphNode, PipelineGraph as Graph } from "@/server/shared/pipelines.ts";

/** A teammate with a step selected in their own tab. */
export interface GraphWatcher {
  node: string;
  name: string;
  color: string;
}
type StepData = { step: GraphNode; selected: boolean; watchers?: GraphWatcher[] };
type StepNode = Node<StepData, "step">;

const WIDTH = 260;
const FIT: FitViewOptions = { padding: 0.1, minZoom: 0.55, maxZoom: 1 };
/** Pool variables a step reads; its `$parameters` are one line (the step's details list them all). */
const reads = (n: GraphNode) => n.inputs.filter((i) => !i.from.startsWith("$"));
const params = (n: GraphNode) => n.inputs.filter((i) => i.from.startsWith("$")).map((i) => i.from.slice(1));
/** A card's height: 2 px of border, 16 of padding, a 26 px title row and 18 px per line (its CSS). */
const heightOf = (n: GraphNode) =>
  n.kind === "loop" || n.kind === "end"
    ? 40
    : 44 + 18 * (reads(n).length + n.outputs.length + (params(n).length ? 1 : 0));
const LINE = "h-[18px] truncate font-mono leading-[18px]";

/** The names of the teammates on a step, in their colours, above its top right corner. */
function WatcherChips({ watchers }: { watchers: GraphWatcher[] }) {
  return (
    <div className="pointer-events-none absolute -top-2.5 right-1 flex gap-1" data-testid="graph-watchers">
      {watchers.map((w) => (
        <span
          key={`${w.name}-${w.color}`}
          className="max-w-24 truncate rounded px-1 text-[10px] leading-4 font-medium text-white"
          style={{ backgroundColor: w.color }}
          title={`${w.name} has this step selected`}
        >
          {w.name}
        </span>
      ))}
    </div>
  );
}

const StepCard = memo(function StepCard({ data }: NodeProps<StepNode>) {
  const { step, selected, watchers = [] } = data;
  const ring = selected ? "ring-2 ring-brand-500" : "";
  // The first teammate's colour outlines the card (beside the ring of one's own selection).
  const outline = watchers[0] ? { outline: `2px solid ${watchers[0].color}`, outlineOffset: 3 } : undefined;
  const handles = (
    <>
      <Handle type="target" position={Position.Top} className="!bg-zinc-400" isConnectable={false} />
      <Handle type="source" position={Position.Bottom} className="!bg-zinc-400" isConnectable={false} />
      {watchers.length > 0 && <WatcherChips watchers={watchers} />}
    </>
  );
  if (step.kind === "loop" || step.kind === "end")
    return (
      <div
        data-selected={selected || undefined}
        className={cx(
          "flex h-10 items-center justify-center gap-1.5 rounded-full border text-sm font-medium",
          step.kind === "loop"
            ? "border-violet-400 bg-violet-50 text-violet-800 dark:border-violet-500 dark:bg-violet-950 dark:text-violet-100"
            : "border-zinc-300 bg-zinc-100 text-zinc-600 dark:border-zinc-600 dark:bg-zinc-800 dark:text-zinc-300",
          ring,
        )}
        style={{ width: WIDTH, height: heightOf(step), ...outline }}
      >
        {handles}
        {step.kind === "loop" ? <Repeat className="size-4" aria-hidden /> : <Square className="size-3" aria-hidden />}
        {step.label}
      </div>
    );
  return (
    <div
      data-selected={selected || undefined}
      className={cx(
        "rounded-md border bg-white px-3 py-2 text-left text-xs shadow-sm dark:bg-zinc-900",
        step.kind === "branch"
          ? "border-amber-400 dark:border-amber-500"
          : step.unknown
            ? "border-red-400 dark:border-red-500"
            : "border-zinc-300 dark:border-zinc-600",
        ring,
      )}
      style={{ width: WIDTH, height: heightOf(step), ...outline }}
    >
      {handles}
      <div className="flex h-[26px] items-center gap-1.5 font-mono text-[13px] font-semibold">
        {step.kind === "branch" && <GitBranch className="size-3.5 text-amber-600" aria-label="branch" />}
        <span className="truncate">{step.label}</span>
      </div>
      {reads(step).map((i) => (
        <div key={`in-${i.name}`} className={cx(LINE, "text-zinc-500 dark:text-zinc-400")}>
          {i.name} ← <span className="text-zinc-700 dark:text-zinc-200">{i.from}</span>
        </div>
      ))}
      {params(step).length > 0 && (
        <div className={cx(LINE, "text-zinc-400")} title={params(step).join(", ")}>
          $ {params(step).join(", ")}
        </div>
      )}
      {step.outputs.map((o) => (
        <div key={`out-${o.name}`} className={cx(LINE, "text-emerald-700 dark:text-emerald-400")}>
          → {o.as}
          {o.as !== o.name ? ` (${o.name})` : ""}
        </div>
      ))}
    </div>
  );
});

const nodeTypes = { step: StepCard };

type Positions = Map<string, { x: number; y: number }>;

/** Where each node's top left corner goes: dagre's layout, with every node's known size. */
function positionsOf(graph: Graph): Positions {
  const out: Positions = new Map();
  const { nodes, edges } = graph;
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "TB", nodesep: 40, ranksep: 48 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: WIDTH, height: heightOf(n) });
  for (const e of edges) if (e.kind !== "repeat") g.setEdge(e.source, e.target);
  dagre.layout(g);
  for (const n of nodes) {
    const p = g.node(n.id);
    out.set(n.id, { x: p.x - WIDTH / 2, y: p.y - heightOf(n) / 2 });
  }
  return out;
}

/** What the positions depend on: the nodes with their heights, and the edges laid out. */
const geometryOf = (graph: Graph) =>
  `${graph.nodes.map((n) => `${n.id}:${heightOf(n)}`).join(",")}|${graph.edges
    .filter((e) => e.kind !== "repeat")
    .map((e) => `${e.source}>${e.target}`)
    .join(",")}`;

function layout(graph: Graph, positions: Positions, selected: string | null): { nodes: StepNode[]; edges: Edge[] } {
  const nodes: StepNode[] = graph.nodes.map((n) => {
    const p = positions.get(n.id)!;
    return {
      id: n.id,
      type: "step",
      position: p,
      // Known sizes: drawn at once, no measuring before the first paint.
      width: WIDTH,
      height: heightOf(n),
      data: { step: n, selected: n.id === selected },
      ariaLabel: `${n.kind === "branch" ? "branch " : ""}${n.label}, line ${n.pos.line}`,
      selected: n.id === selected,
    };
  });
  const edges: Edge[] = graph.edges.map((e) => ({
    id: e.id,
    source: e.source,
    target: e.target,
    type: "smoothstep",
    ...(e.label ? { label: e.label } : {}),
    animated: e.kind === "repeat",
    markerEnd: { type: MarkerType.ArrowClosed },
    className: `edge-${e.kind}`,
    style:
      e.kind === "repeat"
        ? { stroke: "#8b5cf6", strokeDasharray: "6 4" }
        : e.kind === "case"
          ? { stroke: "#d97706" }
          : undefined,
    labelBgPadding: [4, 2] as [number, number],
  }));
  return { nodes, edges };
}

/** The graph's shape: steps and their labels. Same shape, same layout, no refit while you type. */
const shapeOf = (graph: Graph) => graph.nodes.map((n) => `${n.id}:${n.label}`).join("|");

/**
 * Inside React Flow: fit the view to each new shape, then report that shape as laid out. React Flow
 * settles a fit only once the nodes are measured, so the report means drawn, measured and fitted.
 * This is the only fit (no `fitView` prop: React Flow's initial fit drops the promise of a fit asked
 * for meanwhile, 12.12). Not gated on useNodesInitialized: with controlled nodes and no
 * onNodesChange that flag only refreshes when the nodes prop changes, so it would wait forever.
 */
function FitOnShape({ shape, onLaidOut }: { shape: string; onLaidOut: (shape: string) => void }) {
  const { fitView, viewportInitialized } = useReactFlow();
  useEffect(() => {
    // Before the viewport exists React Flow drops a fit without settling its promise.
    if (!viewportInitialized) return;
    let current = true;
    void fitView(FIT).then(() => {
      if (current) onLaidOut(shape);
    });
    return () => {
      current = false;
    };
  }, [viewportInitialized, shape, fitView, onLaidOut]);
  return null;
}

const NO_WATCHERS: GraphWatcher[] = [];

export function PipelineGraph({
  graph,
  selected,
  onSelect,
  watchers = NO_WATCHERS,
  className,
}: {
  graph: Graph;
  selected: string | null;
  onSelect: (id: string | null) => void;
  /** Teammates and the step each has selected (co-editing). */
  watchers?: GraphWatcher[];
  className?: string;
}) {
  const { resolvedTheme } = useTheme();
  // Positions once per geometry (typing that keeps the shape reuses them); nodes once per graph; a
  // new selection only marks nodes (no new layout, no re-measuring).
  const placed = useRef<{ geometry: string; positions: Positions } | null>(null);
  const laidOut = useMemo(() => {
    const geometry = geometryOf(graph);
    if (placed.current?.geometry !== geometry) placed.current = { geometry, positions: positionsOf(graph) };
    return layout(graph, placed.current.positions, null);
  }, [graph]);
  const nodes = useMemo(
    () =>
      laidOut.nodes.map((n) => {
        const on = watchers.filter((w) => w.node === n.id);
        if (n.id !== selected && on.length === 0) return n;
        const mine = n.id === selected;
        return { ...n, selected: mine, data: { ...n.data, selected: mine, watchers: on } };
      }),
    [laidOut, selected, watchers],
  );
  const edges = laidOut.edges;
  const shape = useMemo(() => shapeOf(graph), [graph]);
  const [laidOutShape, setLaidOutShape] = useState<string | null>(null);
  const onLaidOut = useCallback((s: string) => setLaidOutShape(s), []);
  // Enter or Space on a focused node selects it, Escape clears: React Flow's keyboard selection is
  // off with its selection (see the top of the file), so the page hears the key from here.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const el = (e.target as HTMLElement).closest<HTMLElement>(".react-flow__node");
    const id = el?.dataset.id;
    if (!id) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      onSelect(id);
    } else if (e.key === "Escape" && id === selected) onSelect(null);
  };
  return (
    <div
      className={cx("h-[32rem] rounded-md border border-zinc-200 dark:border-zinc-800", className)}
      role="group"
      aria-label="Pipeline graph"
      data-testid="pipeline-graph"
      data-layout={laidOutShape === shape ? "ready" : "pending"}
      onKeyDown={onKeyDown}
    >
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        colorMode={resolvedTheme === "dark" ? "dark" : "light"}
        minZoom={0.2}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        edgesFocusable={false}
        onNodeClick={(_, n) => onSelect(n.id === selected ? null : n.id)}
        onPaneClick={() => onSelect(null)}
      >
        <FitOnShape shape={shape} onLaidOut={onLaidOut} />
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
