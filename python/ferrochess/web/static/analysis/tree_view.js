// The move tree drawn as lichess draws it: the main line in two columns (move number, White,
// Black); where a main-line move has variations or comments, the columns stop for a block that
// holds them, each variation a line of its own, its moves inline, variations inside it in
// parentheses. Comments, NAG glyphs (coloured as lichess colours ?!, ?, ??, !, !!, !?) and the
// review's verdicts are shown. Each move is an element with `data-path` ("0.0.1"); clicks and
// the context menu are handed to the controller by one listener on the container.

import { el } from "../ui/dom.js";
import { moveNumber, rootPly, whiteMoves } from "../ui/moves.js";
import { formatScore, resultShown } from "../ui/score.js";
import { JUDGEMENT_WORDS, nagGlyph, shownNags } from "./format.js";
import { pathKey } from "./tree.js";

function glyphs(node) {
  return shownNags(node).map((nag) => {
    const { glyph, name, kind } = nagGlyph(nag);
    return el("span", { class: `glyph nag-${kind}`, title: name, "data-nag": nag }, glyph);
  });
}

/** A move: its number when `numbered`, its SAN and glyphs; `withEval` adds its evaluation. */
function moveElement(node, path, ply, { numbered, withEval = false }) {
  const key = pathKey(path);
  const judged = node.judgement ? ` judged-${node.judgement}` : "";
  const number = numbered ? moveNumber(ply) : "";
  return el("span", {
    class: `move${judged}`, role: "treeitem", tabindex: "-1", "data-path": key, "data-uci": node.uci,
    "data-san": node.san, "data-judgement": node.judgement || null,
  },
  number ? el("span", { class: "index" }, number) : null,
  el("span", { class: "san" }, node.san),
  ...glyphs(node),
  withEval && node.eval ? el("span", { class: "move-eval" }, formatScore(node.eval)) : null);
}

/** The comments after a node: the review's verdict, then its own comment. */
function comments(node) {
  const parts = [];
  if (node.judgement && JUDGEMENT_WORDS[node.judgement]) {
    const best = node.best_san ? ` Best was ${node.best_san}.` : "";
    parts.push(el("span", { class: `comment judgement judged-${node.judgement}`, "data-judgement": node.judgement },
      `${JUDGEMENT_WORDS[node.judgement]}.${best}`));
  }
  if (node.comment) parts.push(el("span", { class: "comment" }, node.comment));
  return parts;
}

function expander(parentPath, count) {
  return el("button", { type: "button", class: "expand", "data-expand": pathKey(parentPath),
    title: "Show the variations" }, `+${count}`);
}

/** The line that starts with child `index` of `parent` (at `parentPath`, its moves from ply `ply`)
 * and goes on along first children, inline into `out`; the variations met on the way nest in
 * parentheses (recursion only per nested variation, a loop along each line). */
function inlineLine(out, parent, parentPath, index, ply) {
  let numbered = true;
  let first = true;
  for (;;) {
    const node = parent.children[index];
    if (!node) return;
    const path = [...parentPath, index];
    if (first && node.starting_comment) out.append(el("span", { class: "comment" }, node.starting_comment));
    out.append(moveElement(node, path, ply, { numbered: numbered || whiteMoves(ply) }));
    const notes = comments(node);
    out.append(...notes);
    numbered = notes.length > 0;
    if (!first && parent.children.length > 1) {
      if (parent.collapsed) {
        out.append(expander(parentPath, parent.children.length - 1));
      } else {
        for (let other = 1; other < parent.children.length; other += 1) {
          const nested = el("span", { class: "variation" });
          inlineLine(nested, parent, parentPath, other, ply);
          out.append(el("span", { class: "paren" }, "("), nested, el("span", { class: "paren" }, ")"));
        }
      }
      numbered = true;
    }
    first = false;
    parent = node;
    parentPath = path;
    index = 0;
    ply += 1;
  }
}

/** The block after a main-line move: its comments and the variations played instead of it. */
function interrupt(parent, parentPath, node, ply) {
  const block = el("div", { class: "interrupt" }, ...comments(node));
  const count = parent.children.length - 1;
  if (count > 0 && parent.collapsed) {
    block.append(el("div", { class: "line collapsed" }, expander(parentPath, count)));
  } else if (count > 0) {
    const lines = el("div", { class: "lines" });
    for (let other = 1; other <= count; other += 1) {
      const line = el("div", { class: "line", "data-line": pathKey([...parentPath, other]) });
      inlineLine(line, parent, parentPath, other, ply);
      lines.append(line);
    }
    block.append(lines);
  }
  return block;
}

/** Whether `tree` is the blank board the hint is for: no move, no comment, and no headers (every
 * import, even of a game that is only a comment, brings the server's headers). */
function isBlank(tree) {
  return !tree.children.length && !tree.comment && !Object.keys(tree.headers || {}).length;
}

/** Draws `tree` into `container` (its content is replaced). */
export function renderTree(container, tree) {
  const parts = [];
  if (tree.comment) parts.push(el("div", { class: "interrupt" }, el("span", { class: "comment" }, tree.comment)));
  let parent = tree;
  let parentPath = [];
  let ply = rootPly(tree.fen);
  let resume = !whiteMoves(ply); // the row begins with Black's move: number and "…" first
  while (parent.children.length) {
    const node = parent.children[0];
    const path = [...parentPath, 0];
    const white = whiteMoves(ply);
    if (white) parts.push(el("span", { class: "index" }, moveNumber(ply)));
    else if (resume) parts.push(el("span", { class: "index" }, moveNumber(ply - 1)), el("span", { class: "empty" }, "…"));
    resume = false;
    parts.push(moveElement(node, path, ply, { numbered: false, withEval: true }));
    const breaks = parent.children.length > 1 || node.comment || node.judgement;
    if (breaks) {
      if (white) parts.push(el("span", { class: "empty" }, "…"));
      parts.push(interrupt(parent, parentPath, node, ply));
      resume = white;
    }
    parent = node;
    parentPath = path;
    ply += 1;
  }
  if (isBlank(tree)) parts.push(el("p", { class: "tree-empty" }, "Make a move on the board, or import a PGN."));
  const result = tree.headers && tree.headers.Result;
  if (tree.children.length && result && result !== "*") parts.push(el("div", { class: "result" }, resultShown(result)));
  container.replaceChildren(...parts);
}

/** Marks the move at `path` as the one shown (and the moves leading to it), and scrolls the tree
 * (only it) so that it shows. */
export function markPath(container, path) {
  const key = pathKey(path);
  for (const old of container.querySelectorAll(".move.active, .move.on-path")) {
    old.classList.remove("active", "on-path");
    old.removeAttribute("aria-current");
  }
  for (let depth = 1; depth < path.length; depth += 1) {
    const along = container.querySelector(`.move[data-path="${pathKey(path.slice(0, depth))}"]`);
    if (along) along.classList.add("on-path");
  }
  const active = key ? container.querySelector(`.move[data-path="${key}"]`) : null;
  if (!active) {
    if (!key) container.scrollTop = 0;
    return;
  }
  active.classList.add("active");
  active.setAttribute("aria-current", "step");
  const box = container.getBoundingClientRect();
  const item = active.getBoundingClientRect();
  if (item.top < box.top) container.scrollTop -= box.top - item.top + 8;
  else if (item.bottom > box.bottom) container.scrollTop += item.bottom - box.bottom + 8;
}
