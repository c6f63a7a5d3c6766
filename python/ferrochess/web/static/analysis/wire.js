// The move tree between its two shapes: nested in the browser, flat along each line on the wire.
//
// In the browser a tree is nested, one level per move: `{headers, fen, comment, eval, line,
// children}`, each node `{uci, san, ..., children}`, children[0] the main line. On the wire
// (api/import's answers, api/export's request, the notebook's `tree` trait) it is shaped like PGN:
// `{headers, fen, comment, eval, line, moves}` (and `chess960: true` for a game of Chess960), where `moves` is the main line in order and each
// node's `variations` are the lines played instead of it. Python's JSON reader and writer recurse
// once per level, so a tree nested per move could not cross the wire; the wire shape nests only
// where a variation opens. Both functions walk lines with loops, so a long game costs no stack.
//
//   const tree = fromWire(answer.tree);   // nested: every node has `children`
//   const body = { tree: toWire(tree) };  // flat again: every node has `variations`

const ROOT_FIELDS = ["headers", "fen", "chess960", "comment", "eval", "line"];

/** A node as a request's game: `{fen, moves}`, with `chess960: true` in a game of Chess960 (whose
 *  castling moves are the king taking its rook, e1h1). */
export const positionBody = ({ fen, moves, chess960 = false }) => (chess960 ? { fen, moves, chess960 } : { fen, moves });

/** A node's own fields (all but `children`/`variations`), copied. */
function ownFields(node) {
  const copy = {};
  for (const [key, value] of Object.entries(node)) {
    if (key !== "children" && key !== "variations") copy[key] = value;
  }
  return copy;
}

/** The nested tree of a wire tree. */
export function fromWire(wire) {
  const root = {};
  for (const key of ROOT_FIELDS) if (key in wire) root[key] = wire[key];
  root.children = [];
  // Each job hangs a wire line under a nested parent: the line's first node becomes one of the
  // parent's children, each next node the first child of the one before. A variation's first
  // node is added at once (so siblings keep the wire's order); the rest of it is a later job.
  const jobs = [[root, wire.moves || []]];
  while (jobs.length) {
    const [parent, line] = jobs.pop();
    let at = parent;
    for (const wireNode of line) {
      const node = { ...ownFields(wireNode), children: [] };
      at.children.push(node);
      for (const variation of wireNode.variations || []) {
        if (!variation.length) continue;
        const first = { ...ownFields(variation[0]), children: [] };
        at.children.push(first);
        jobs.push([first, variation.slice(1)]);
      }
      at = node;
    }
  }
  return root;
}

/** The wire tree of a nested tree. */
export function toWire(tree) {
  const wire = {};
  for (const key of ROOT_FIELDS) if (key in tree) wire[key] = tree[key];
  wire.moves = [];
  // Each job writes the line that starts at `node` (a child of some parent) into `out`.
  const jobs = [];
  const startLine = (children, out) => {
    if (!children || !children.length) return;
    jobs.push([children, out]);
  };
  startLine(tree.children, wire.moves);
  while (jobs.length) {
    const [children, out] = jobs.pop();
    let siblings = children;
    while (siblings && siblings.length) {
      const [main, ...others] = siblings;
      const wireNode = { ...ownFields(main), variations: [] };
      for (const other of others) {
        const variation = [];
        wireNode.variations.push(variation);
        // The variation's first move, then its own continuation as a line.
        const first = { ...ownFields(other), variations: [] };
        variation.push(first);
        jobs.push([other.children || [], variation]);
      }
      out.push(wireNode);
      siblings = main.children;
    }
  }
  return wire;
}
