// The move tree as data (lichess's ui/analyse tree): a root `{headers, fen, comment, eval, line,
// children}` and nodes `{uci, san, comment, starting_comment, nags, eval, clock, arrows, line,
// judgement, explanation, best_san, children}`; children[0] is the main line, the others its
// variations in order. A node is addressed by its path, the child indices from the root ([] the
// root, [0, 0, 1]). Every function here is a data operation: no chess rule (the server says what
// is legal and writes the SAN); lines are walked with loops, so a long game costs no stack.
//
// `collapsed: true` on a node is the page's own mark (its variations folded away); it is left out
// of what goes to the server (withoutMarks).

export const START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/** A tree of one position and no moves. */
export function emptyTree(fen = START_FEN, headers = {}) {
  return { headers: { ...headers }, fen, comment: "", eval: null, line: null, children: [] };
}

/** A new node for a move the server named (`uci`, `san`), with the empty fields of the contract. */
export function newNode({ uci, san }) {
  return {
    uci, san, comment: "", starting_comment: "", nags: [], eval: null, clock: null, arrows: [],
    line: null, judgement: null, explanation: null, best_san: null, children: [],
  };
}

/** The path as the page writes it ("0.0.1"; "" for the root) and back. */
export const pathKey = (path) => path.join(".");
export const parsePath = (key) => (key === "" || key == null ? [] : String(key).split(".").map(Number));
export const samePath = (a, b) => a.length === b.length && a.every((index, i) => index === b[i]);

/** The node at `path`, or null when the path leads nowhere. */
export function nodeAt(tree, path) {
  let node = tree;
  for (const index of path) {
    node = node.children && node.children[index];
    if (!node) return null;
  }
  return node;
}

/** The nodes from the root to `path` (the root first); stops where the path leads nowhere. */
export function nodesAlong(tree, path) {
  const nodes = [tree];
  let node = tree;
  for (const index of path) {
    node = node.children[index];
    if (!node) break;
    nodes.push(node);
  }
  return nodes;
}

/** The UCI moves that lead to `path`. */
export function movesAlong(tree, path) {
  return nodesAlong(tree, path).slice(1).map((node) => node.uci);
}

/** The longest part of `path` that leads to a node. */
export function validPath(tree, path) {
  return path.slice(0, nodesAlong(tree, path).length - 1);
}

/** The path of `target` (a node object of the tree), or null when it is not in the tree. */
export function pathOf(tree, target) {
  const stack = [[tree, []]];
  while (stack.length) {
    const [node, path] = stack.pop();
    if (node === target) return path;
    node.children.forEach((child, index) => stack.push([child, [...path, index]]));
  }
  return null;
}

/** Adds the move `{uci, san}` after `path`, or finds the child already there with that UCI.
 * Returns the child's path and whether it is new. */
export function addChild(tree, path, move) {
  const parent = nodeAt(tree, path);
  const index = parent.children.findIndex((child) => child.uci === move.uci);
  if (index >= 0) return { path: [...path, index], added: false };
  parent.children.push(newNode(move));
  return { path: [...path, parent.children.length - 1], added: true };
}

/** Adds the moves `[{uci, san}, ...]` one after another from `path`; the last one's path. */
export function addLine(tree, path, moves) {
  let at = path;
  for (const move of moves) at = addChild(tree, at, move).path;
  return at;
}

/** Moves the node at `path` first among its siblings at each fork above it, up to the nearest
 * one (`toMainline` false: lichess's "promote variation") or all of them ("make main line").
 * Returns the node's new path. */
export function promote(tree, path, toMainline = false) {
  const nodes = nodesAlong(tree, path);
  const result = path.slice();
  for (let depth = path.length - 1; depth >= 0; depth -= 1) {
    const index = result[depth];
    if (index === 0) continue;
    const siblings = nodes[depth].children;
    const [moved] = siblings.splice(index, 1);
    siblings.unshift(moved);
    result[depth] = 0;
    if (!toMainline) break;
  }
  return result;
}

/** Whether the node at `path` lies on the main line (every index 0). */
export function onMainline(path) {
  return path.every((index) => index === 0);
}

/** Removes the node at `path` with everything after it. Returns the parent's path. */
export function deleteAt(tree, path) {
  if (!path.length) return [];
  const parentPath = path.slice(0, -1);
  nodeAt(tree, parentPath).children.splice(path[path.length - 1], 1);
  return parentPath;
}

/** Folds (or unfolds) the variations that start after the node at `path`. */
export function setCollapsed(tree, path, collapsed) {
  const node = nodeAt(tree, path);
  if (!node) return;
  if (collapsed) node.collapsed = true;
  else delete node.collapsed;
}

/** The comment after the move at `path` (the root's: before the first move). */
export function setComment(tree, path, text) {
  const node = nodeAt(tree, path);
  if (node) node.comment = String(text);
}

/** PGN's NAGs in the groups where one excludes the others, as lichess's glyph editor has them:
 * the move's assessment (1-6, 7 only move) and the position's (10-19). */
const NAG_GROUPS = [[1, 2, 3, 4, 5, 6, 7], [10, 13, 14, 15, 16, 17, 18, 19]];

/** Sets or clears NAG `nag` on the node at `path`; setting one clears the others of its group. */
export function toggleNag(tree, path, nag) {
  const node = nodeAt(tree, path);
  if (!node || !path.length) return;
  const nags = node.nags || [];
  if (nags.includes(nag)) {
    node.nags = nags.filter((other) => other !== nag);
    return;
  }
  const group = NAG_GROUPS.find((members) => members.includes(nag)) || [nag];
  node.nags = [...nags.filter((other) => !group.includes(other)), nag].sort((a, b) => a - b);
}

// --- navigation ---------------------------------------------------------------------------------

/** The main continuation after `path` (its first child), or null at the end of a line. */
export function nextPath(tree, path) {
  const node = nodeAt(tree, path);
  return node && node.children.length ? [...path, 0] : null;
}

/** The position before `path`, or null at the root. */
export function previousPath(path) {
  return path.length ? path.slice(0, -1) : null;
}

/** The end of the line through `path` (its first children followed to the last move). */
export function lineEnd(tree, path) {
  const result = path.slice();
  let node = nodeAt(tree, path);
  while (node && node.children.length) {
    result.push(0);
    node = node.children[0];
  }
  return result;
}

/** The nearest fork at or above `path`: the depth whose node has siblings, or -1. */
function nearestFork(tree, path) {
  const nodes = nodesAlong(tree, path);
  for (let depth = path.length - 1; depth >= 0; depth -= 1) {
    if (nodes[depth].children.length > 1) return depth;
  }
  return -1;
}

/** Up (`delta` -1) or down (+1) between the lines of the nearest fork, as lichess does: the path
 * of the neighbouring sibling line's first move there, or null when there is none. At a node
 * whose own moves fork (and no fork above), down enters its second line. */
export function siblingPath(tree, path, delta) {
  const depth = nearestFork(tree, path);
  if (depth < 0) {
    const node = nodeAt(tree, path);
    return delta > 0 && node && node.children.length > 1 ? [...path, 1] : null;
  }
  const siblings = nodesAlong(tree, path)[depth].children;
  const index = path[depth] + delta;
  if (index < 0 || index >= siblings.length) return null;
  return [...path.slice(0, depth), index];
}

/** How many moves the tree holds (every line). */
export function countNodes(tree) {
  let count = 0;
  const stack = [...tree.children];
  while (stack.length) {
    const node = stack.pop();
    count += 1;
    stack.push(...node.children);
  }
  return count;
}

/** A deep copy of a nested tree (with loops: no recursion per move). */
export function cloneTree(tree) {
  const copy = { ...tree, headers: { ...(tree.headers || {}) }, children: [] };
  const jobs = [[tree, copy]];
  while (jobs.length) {
    const [from, to] = jobs.pop();
    to.children = from.children.map((child) => ({ ...child, children: [] }));
    from.children.forEach((child, index) => jobs.push([child, to.children[index]]));
  }
  return copy;
}

/** A wire tree (wire.js's toWire) without the page's own marks (`collapsed`). */
export function withoutMarks(wire) {
  const stack = [wire.moves || []];
  while (stack.length) {
    const line = stack.pop();
    for (const node of line) {
      delete node.collapsed;
      for (const variation of node.variations || []) stack.push(variation);
    }
  }
  return wire;
}

/** Whether `value` looks like a nested tree this module can use. */
export function isTree(value) {
  return Boolean(value && typeof value === "object" && typeof value.fen === "string" && Array.isArray(value.children));
}
