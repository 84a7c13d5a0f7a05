import { flamegraph, type FlameGraph as Chart } from 'd3-flame-graph';
import 'd3-flame-graph/dist/d3-flamegraph.css';
import { select } from 'd3-selection';
import { useEffect, useId, useImperativeHandle, useRef, useState, type Ref } from 'react';
import { formatDuration } from '../../components/formats';
import { formatCount } from './hooks';
import type { CallTreeNode } from './profileTree';

/** What d3-flame-graph hands to its callbacks: a d3-hierarchy node over our tree. */
interface DrawnNode {
  id: number;
  data: CallTreeNode;
  depth: number;
  parent: DrawnNode | null;
  children?: DrawnNode[];
  highlight?: boolean;
}

/** What the page can ask of a drawn flame graph. */
export interface FlameGraphHandle {
  /** Zooms back out to the whole tree. */
  resetZoom(): void;
}

export interface SearchResult {
  frames: number;
  samples: number;
  total: number;
}

/** A shade from a function name, so one function keeps its colour wherever it appears. */
function shadeOf(name: string): number {
  let hash = 0;
  for (let index = 0; index < name.length; index++) hash = (hash * 31 + name.charCodeAt(index)) | 0;
  return Math.abs(hash) % 1000;
}

/** In-app frames in blues, other frames (libraries, the engine) in oranges, the thread itself in grey. */
export const FLAME_COLOURS = { inApp: 'hsl(210, 70%, 64%)', other: 'hsl(32, 88%, 62%)', highlight: '#e600e6', root: '#c9ced8' };

function frameColour(node: DrawnNode): string {
  if (node.highlight) return FLAME_COLOURS.highlight;
  if (node.depth === 0) return FLAME_COLOURS.root;
  const shade = shadeOf(node.data.name);
  return node.data.inApp ? `hsl(${198 + (shade % 26)}, 70%, ${58 + (shade % 15)}%)` : `hsl(${20 + (shade % 26)}, 88%, ${56 + (shade % 15)}%)`;
}

const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });

function frameLabel(node: DrawnNode, total: number): string {
  const { name, file, line, value, durationMs, inApp } = node.data;
  const where = file ? ` (${file}${line !== null ? `:${line}` : ''})` : '';
  const share = total > 0 ? percent.format(value / total) : '';
  return `${name}${where}: ${formatCount(value)} ${value === 1 ? 'sample' : 'samples'}, ${share}, ${formatDuration(durationMs)}${inApp ? ', in-app' : ''}`;
}

const searchMatches = (node: DrawnNode, term: string) => term !== '' && node.data.name.toLowerCase().includes(term.toLowerCase());

const frameOf = (element: HTMLElement, id: number) =>
  select(element)
    .selectAll<SVGGElement, DrawnNode>('g.frame')
    .filter((node) => node.id === id)
    .node();

/**
 * Frames as buttons named by their label, one of them in the tab order (a roving tabindex: the arrows move it), so
 * the graph is a single stop for Tab however many frames it draws.
 */
function keyboardFrames(element: HTMLElement, focusedId: number): void {
  const frames = select(element).selectAll<SVGGElement, DrawnNode>('g.frame');
  const current = frames.filter((node) => node.id === focusedId).empty() ? 0 : focusedId;
  frames
    .attr('role', 'button')
    .attr('aria-label', function () {
      return this.querySelector('title')?.textContent ?? null;
    })
    .attr('tabindex', (node) => (node.id === current ? 0 : -1));
}

/** The drawn frame an arrow key moves to: ↑ the widest callee, ↓ the caller, ← → the callers' other callees. */
function neighbour(element: HTMLElement, node: DrawnNode, key: string): DrawnNode | undefined {
  const drawn = (candidate: DrawnNode) => frameOf(element, candidate.id) !== null;
  if (key === 'ArrowUp') return [...(node.children ?? [])].filter(drawn).sort((a, b) => b.data.value - a.data.value)[0];
  if (key === 'ArrowDown') return node.parent ?? undefined;
  if (key !== 'ArrowLeft' && key !== 'ArrowRight') return undefined;
  const siblings = (node.parent?.children ?? []).filter(drawn);
  return siblings[siblings.indexOf(node) + (key === 'ArrowLeft' ? -1 : 1)];
}

/**
 * A flame graph of a call tree drawn by d3-flame-graph: callers below their callees, each frame as wide as its share
 * of the samples. A click zooms into a frame (the library's own), hovering names it below the graph, and `search`
 * highlights the frames whose function name contains it. From the keyboard, Tab reaches the graph, the arrows move
 * between frames, Enter zooms and Escape zooms out. The chart follows its container's width and is removed
 * when the component unmounts.
 */
export function FlameGraph({
  tree,
  search,
  label,
  onSearchResult,
  onZoom,
  ref,
}: {
  tree: CallTreeNode;
  search: string;
  label: string;
  onSearchResult: (result: SearchResult | null) => void;
  onZoom: (zoomed: boolean) => void;
  ref?: Ref<FlameGraphHandle>;
}) {
  const container = useRef<HTMLDivElement>(null);
  const details = useRef<HTMLParagraphElement>(null);
  const chart = useRef<Chart | null>(null);
  const [ready, setReady] = useState(0);
  const detailsId = useId();
  // The latest callbacks, so a new function from the page does not redraw the chart.
  const callbacks = useRef({ onSearchResult, onZoom });
  callbacks.current = { onSearchResult, onZoom };

  useEffect(() => {
    const element = container.current!;
    // The frame the keyboard is on (d3-flame-graph numbers nodes depth-first; the root is 0).
    let focused = 0;
    const reducedMotion = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
    const graph = flamegraph()
      .width(Math.max(element.clientWidth, 320))
      .cellHeight(20)
      .minFrameSize(1)
      .transitionDuration(reducedMotion ? 0 : 300)
      .sort(true)
      .setColorMapper((node: DrawnNode) => frameColour(node))
      .setSearchMatch(searchMatches)
      .setSearchHandler((results: unknown[], samples: number, total: number) => callbacks.current.onSearchResult({ frames: results.length, samples, total }))
      .label((node: DrawnNode) => frameLabel(node, tree.value))
      .setDetailsElement(details.current)
      .onClick((node: DrawnNode) => {
        // Zooming draws frames that were too narrow before; they join the keyboard's frames.
        keyboardFrames(element, focused);
        callbacks.current.onZoom(node.depth > 0);
      });
    select(element).datum(tree).call(graph);
    chart.current = graph;
    keyboardFrames(element, focused);
    setReady((count) => count + 1);

    const onKeyDown = (event: KeyboardEvent) => {
      const frame = (event.target as Element).closest?.('g.frame');
      if (!frame) return;
      const node = select<Element, DrawnNode>(frame).datum();
      if (event.key === 'Enter' || event.key === ' ') {
        // The library zooms on its own click handler.
        frame.dispatchEvent(new MouseEvent('click', { bubbles: true }));
      } else if (event.key === 'Escape') {
        graph.resetZoom();
      } else {
        const next = neighbour(element, node, event.key);
        if (!next) return;
        focused = next.id;
        keyboardFrames(element, focused);
        frameOf(element, next.id)?.focus();
      }
      event.preventDefault();
    };
    element.addEventListener('keydown', onKeyDown);
    // A frame reached from the keyboard is named below the graph, as hovering names it.
    const onFocusIn = (event: FocusEvent) => {
      const label = (event.target as Element).getAttribute?.('aria-label');
      if (label && details.current) details.current.textContent = label;
    };
    element.addEventListener('focusin', onFocusIn);

    let width = element.clientWidth;
    const observer = new ResizeObserver(() => {
      if (element.clientWidth === width || element.clientWidth === 0) return;
      width = element.clientWidth;
      graph.width(width);
      // Without a tree, update() redraws the same one (zoom and highlights kept); index.d.ts types it with one.
      (graph as unknown as { update(): void }).update();
      keyboardFrames(element, focused);
    });
    observer.observe(element);
    return () => {
      element.removeEventListener('keydown', onKeyDown);
      element.removeEventListener('focusin', onFocusIn);
      observer.disconnect();
      graph.destroy();
      chart.current = null;
    };
  }, [tree]);

  useEffect(() => {
    const graph = chart.current;
    if (!graph) return;
    if (search.trim() === '') {
      graph.clear();
      callbacks.current.onSearchResult(null);
    } else {
      graph.search(search.trim());
    }
  }, [search, ready]);

  useImperativeHandle(ref, () => ({
    resetZoom: () => chart.current?.resetZoom(),
  }));

  return (
    <figure className="flame">
      <div ref={container} className="flame-chart" role="group" aria-label={label} aria-describedby={detailsId} />
      <figcaption>
        <p ref={details} id={detailsId} className="flame-details muted" aria-live="polite" />
      </figcaption>
    </figure>
  );
}
