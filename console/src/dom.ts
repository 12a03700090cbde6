// A few DOM helpers, so pages read as the markup they build. No framework: the console is small.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, unknown>;

/** h("a", { href: "#/tasks", class: "nav" }, "Tasks"): an element with attributes, handlers (onclick) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2), value as EventListener);
    } else if (key === "class") {
      element.className = String(value);
    } else if (key in element && typeof value !== "string") {
      (element as unknown as Record<string, unknown>)[key] = value;
    } else {
      element.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(element, ...children);
  return element;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: Child[]): SVGElement {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  append(element, ...children);
  return element;
}

export function append(parent: Element, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : String(child));
  }
}

export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** replace(), but the <details data-key> that were open stay open: a redraw for live data must
 * not close the stack trace or payload someone is reading. */
export function replaceKeepingOpen(parent: Element, ...children: Child[]): void {
  const open = new Set([...parent.querySelectorAll<HTMLDetailsElement>("details[open][data-key]")].map((d) => d.dataset.key));
  replace(parent, ...children);
  for (const details of parent.querySelectorAll<HTMLDetailsElement>("details[data-key]")) {
    if (open.has(details.dataset.key)) details.open = true;
  }
}

/** Briefly highlights an element that live data just changed. */
export function flash(element: Element): void {
  element.classList.remove("flash");
  void (element as HTMLElement).offsetWidth; // restarts the animation
  element.classList.add("flash");
}
