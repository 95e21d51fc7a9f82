/**
 * The in-page probe the browser benches install before the first script: long tasks, and the
 * animation frame in which each named moment first showed. `checks` is script text run on every DOM
 * change, calling `onScreen(name)` once its condition holds; `extra` is more script (input
 * listeners). Plain script text, not a function: the TypeScript loader names nested functions with
 * a helper the page does not have.
 */
export function pageProbe(checks: string, extra = ""): string {
  return `(() => {
  const probe = (window.__probe = { tasks: [] });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) probe.tasks.push([e.startTime, e.duration]);
  }).observe({ type: "longtask", buffered: true });
  // A moment shows in the frame after the DOM had it (that animation frame's start).
  function onScreen(name) {
    if (probe[name] !== undefined) return;
    probe[name] = -1;
    requestAnimationFrame((t) => (probe[name] = t));
  }
  new MutationObserver(() => {
${checks}
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
${extra}
})();`;
}
