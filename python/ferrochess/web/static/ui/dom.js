// The one element builder of the front end (the play page, its review, the analysis board and the
// notebook widgets all build their DOM with it), and its SVG twin for the review's graph.

const SVG_NS = "http://www.w3.org/2000/svg";

/** An element: el("span", {class: "x", "data-ply": 3}, "text", child). An attribute that is
 * null, undefined or false is left out, true is written empty, "class" and "text" set className
 * and textContent; the children null, undefined and "" are left out. */
export function el(tag, attributes = {}, ...children) {
  return build(document.createElement(tag), attributes, children);
}

/** An SVG element, built the same way. */
export function svgEl(tag, attributes = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attributes, children);
}

function build(node, attributes, children) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.setAttribute("class", value);
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  node.append(...children.filter((child) => child !== null && child !== undefined && child !== ""));
  return node;
}
