// The review after a game and "learn from your mistakes", as lichess does them after a computer
// analysis. The server does all the chess: POST /api/review streams the analysis (analyse_game's
// result), /api/state describes each position to set up (legal destinations included), /api/judge
// grades a try. This module only draws what they say: progress, an evaluation graph, each side's
// accuracy, the annotated move list, and the lessons. It never decides what is legal.
//
// The review's own states, one table (every change goes through `#enter`):
//
//   idle ──open()──> analysing ──review──> reviewed ──"Learn"──> learning ──finish──> reviewed
//                      │  └──error──> error ─┐
//                      └──Cancel──> cancelled┴─"Try again"/open()──> analysing
//
// The panel's Cancel button stops the analysis and says so (`cancelled`); the page's cancel() (the
// game changed: new game, takeback, another tab) stops whatever runs and hides the panel (`idle`).
// Both free the server's engine: the review's stream is dropped and api/cancel is sent.

/** @typedef {({cp: number} | {mate: number, mated?: string}) & {tablebase?: string}} Score */
/** @typedef {{ply: number, color: "white"|"black", move: string, san: string,
 *   eval_before: Score, eval_after: Score, best_move: string|null, best_san: string|null,
 *   best_line: string[], win_before: number, win_after: number, accuracy: number,
 *   judgement: null|"inaccuracy"|"mistake"|"blunder"}} ReviewedMove */

export const TRANSITIONS = Object.freeze({
  idle: ["analysing", "error"],
  analysing: ["reviewed", "cancelled", "error", "idle"],
  reviewed: ["learning", "analysing", "error", "idle"],
  learning: ["reviewed", "idle"],
  cancelled: ["analysing", "idle"],
  error: ["analysing", "idle"],
});

export const GLYPHS = Object.freeze({ inaccuracy: "?!", mistake: "?", blunder: "??" });
const JUDGEMENT_NAMES = Object.freeze({
  inaccuracy: ["Inaccuracy", "inaccuracies", "inaccuracy"],
  mistake: ["Mistake", "mistakes", "mistake"],
  blunder: ["Blunder", "blunders", "blunder"],
});
const JUDGEMENT_ORDER = ["inaccuracy", "mistake", "blunder"];
/** Which verdicts of /api/judge solve a lesson, and the words for each (lichess's). */
export const VERDICTS = Object.freeze({
  best: { solved: true, words: "Good move!", detail: "is the engine's best move." },
  good: { solved: true, words: "Good move!", detail: "works too." },
  inaccuracy: { solved: false, words: "You can do better.", detail: "is playable, but there is "
    + "better. Try another move." },
  mistake: { solved: false, words: "That's not it.", detail: "gives too much away. Try "
    + "something else." },
  blunder: { solved: false, words: "That's not it.", detail: "gives too much away. Try "
    + "something else." },
});
const SVG_NS = "http://www.w3.org/2000/svg";
const GRAPH_WIDTH = 1000;
const GRAPH_HEIGHT = 200;
const GRAPH_MARGIN = 10; // a won or lost position's dot stays inside the graph
let instances = 0; // unique ids for each panel's SVG clip paths

// --- pure helpers (exported for tests) ----------------------------------------------------------

/** White's winning percentage (0-100) after each ply, index 0 the start: from the mover's
 * `win_before`/`win_after` that the server computed (lichess's formula, not repeated here). */
export function whitePercents(moves) {
  if (!moves.length) return [];
  const white = (move, percent) => (move.color === "white" ? percent : 100 - percent);
  return [white(moves[0], moves[0].win_before), ...moves.map((m) => white(m, m.win_after))];
}

/** The human's moves to learn from: mistakes and blunders, or the inaccuracies when there are
 * none of those (lichess's "learn from your mistakes"), in the order they were played. */
export function lessonsOf(moves, human) {
  const own = moves.filter((m) => m.color === human && m.judgement && hasBetter(m));
  const serious = own.filter((m) => m.judgement === "mistake" || m.judgement === "blunder");
  return serious.length ? serious : own.filter((m) => m.judgement === "inaccuracy");
}

/** Whether the review names a better move than the one played (a node-limited search can score
 * the engine's own best move as a small drop: there is nothing better to show or to find then). */
export function hasBetter(move) {
  return Boolean(move.best_move && move.best_san && move.best_move !== move.move);
}

/** "12." for a White move, "12…" for a Black one: the label in front of a move's SAN. */
export function moveLabel(move, startNumber, firstColor) {
  const index = move.ply - 1 + (firstColor === "black" ? 1 : 0);
  const number = startNumber + Math.floor(index / 2);
  return move.color === "white" ? `${number}.` : `${number}…`;
}

/** An evaluation in words a chess player reads: "+0.35", "-1.20", "#3", "#-2"; where the tables
 * judged the position, their verdict from the score's `tablebase` ("TB win", "TB draw", "TB loss",
 * "TB cursed win", "TB blessed loss"), all from White's point of view. */
export function formatScore(score) {
  if (!score) return "";
  if ("mate" in score) {
    if (score.mate === 0) return score.mated === "white" ? "0-1" : "1-0";
    return `#${score.mate}`;
  }
  if (score.tablebase) return `TB ${score.tablebase}`;
  const pawns = score.cp / 100;
  return `${pawns > 0 ? "+" : ""}${pawns.toFixed(2)}`;
}

/** The squares of a UCI move for an arrow: {from, to}; null for none. */
export function squaresOf(uci) {
  if (typeof uci !== "string" || uci.length < 4) return null;
  return { from: uci.slice(0, 2), to: uci.slice(2, 4) };
}

/** What went wrong, in words for a person: the server unreachable, busy, or its own message. */
export function describeError(error) {
  const status = error && (error.status ?? error.statusCode);
  const message = String((error && (error.message || error.error)) || error || "");
  if (status === 409) return "The search was cancelled; try again.";
  if (status === 503) return "Every engine is busy; try again in a moment.";
  if (error && error.kind === "network") {
    return "Cannot reach the server: is ferrochess play still running?";
  }
  const words = message || "something went wrong";
  return `${words[0].toUpperCase()}${words.slice(1)}${/[.!?]$/.test(words) ? "" : "."}`;
}

// --- the panel ----------------------------------------------------------------------------------

export class Review {
  /**
   * @param {object} options
   * @param {HTMLElement} options.container where the panel is drawn (its content is this module's)
   * @param {{request: Function, stream: Function, cancel: Function}} options.transport
   * @param {object} options.board board.js: show, setMoveHandler, arrows, setOrientation
   * @param {string} [options.clientId] sent with the review, for /api/cancel
   * @param {() => {fen: string, moves: string[], human: string, end?: object}} options.getGame
   * @param {(ply: number) => void} options.onJump show the position after `ply` plies
   * @param {() => void} options.onDone back to the live position (after the lessons)
   * @param {(state: string, previous: string) => void} [options.onState] told each change of
   *   state (the page's game machine follows: analysing = "review", reviewed = "reviewed" or
   *   "learned", learning = "learn", cancelled/error/idle = "stopped")
   */
  constructor({ container, transport, board, clientId, getGame, onJump, onDone, onState }) {
    this.container = container;
    this.transport = transport;
    this.board = board;
    this.clientId = clientId;
    this.getGame = getGame;
    this.onJump = onJump || (() => {});
    this.onDone = onDone || (() => {});
    this.onState = onState || (() => {});
    this.state = "idle";
    this.abort = null; // aborts the running analysis's stream
    this.review = null; // analyse_game's result for `this.game`
    this.game = null; // the game reviewed: {fen, moves, human, end}
    this.key = null; // what identifies that game, so a second open() reuses the review
    this.selected = null; // the ply the panel highlights
    this.generation = 0; // bumped on every cancel/restart: stale answers are dropped
    this.lesson = null; // while learning: {list, index, results, position, prefix, busy}
    this.startNumber = 1; // the number of the game's first move (the server's `fullmove`)
    this.id = ++instances;
    this.#build();
    this.#enter("idle");
  }

  /** Start the analysis of the game as getGame() gives it (or show the review already made). */
  open() {
    if (this.state === "analysing") return;
    if (this.state === "learning") this.#stopLearning();
    const game = this.getGame();
    const key = JSON.stringify([game.fen, game.moves, game.end || null]);
    this.game = game;
    if (this.review && key === this.key) {
      this.#showReview();
      return;
    }
    this.review = null;
    this.key = key;
    if (!game.moves || !game.moves.length) {
      this.#enter("error");
      this.#message("There are no moves to review yet.", false);
      return;
    }
    this.#analyse(game);
  }

  /** The game changed: stop whatever runs (the analysis, whose engine the server frees, or the
   * lessons), forget the review and hide the panel. */
  cancel() {
    if (this.state === "analysing") this.#abortAnalysis();
    if (this.state === "learning") this.#stopLearning();
    this.generation += 1;
    this.review = null;
    this.key = null;
    this.#enter("idle");
  }

  /** The panel's Cancel button: stop the analysis and say so. */
  #cancelAnalysis() {
    if (this.state !== "analysing") return;
    this.#abortAnalysis();
    this.#enter("cancelled");
    this.#message("The review was cancelled.", true);
  }

  /** The board shows the position after `ply` plies (null: the live position): highlight that
   * move in the list and the graph and, once reviewed, draw the engine's best move there as a
   * blue arrow. The page calls this whenever it steps through the game (keys, its move list). */
  select(ply) {
    this.selected = ply;
    const list = this.el.moves;
    for (const item of list.querySelectorAll(".review-move")) {
      const current = Number(item.dataset.ply) === ply;
      item.classList.toggle("current", current);
      if (current) scrollWithin(list, item);
    }
    this.#drawCursor();
    if (this.state !== "reviewed" || !this.review) return;
    const next = ply == null ? null : this.review.moves[ply]; // its best_move is this position's
    const arrow = next && squaresOf(next.best_move);
    this.board.arrows(arrow ? [{ ...arrow, brush: "blue" }] : []);
  }

  // --- states -----------------------------------------------------------------------------------

  #enter(state) {
    if (state !== this.state && !TRANSITIONS[this.state].includes(state)) {
      throw new Error(`review: no transition from ${this.state} to ${state}`);
    }
    const previous = this.state;
    this.state = state;
    this.container.dataset.reviewState = state;
    const { progress, message, result, learning } = this.el;
    this.container.hidden = state === "idle";
    progress.hidden = state !== "analysing";
    message.hidden = state !== "cancelled" && state !== "error";
    result.hidden = state !== "reviewed";
    learning.hidden = state !== "learning";
    if (state !== previous) this.onState(state, previous);
  }

  // --- the analysis -----------------------------------------------------------------------------

  async #analyse(game) {
    const generation = ++this.generation;
    this.el.summaryBox.hidden = true; // the lessons' summary of an earlier review
    this.#enter("analysing");
    this.#progress(0, game.moves.length + 1);
    const body = { fen: game.fen, moves: game.moves, client: this.clientId };
    if (game.end) body.end = game.end;
    let outcome = null;
    const numbered = this.#numberMoves(game, generation);
    const abort = typeof AbortController === "function" ? new AbortController() : null;
    this.abort = abort;
    try {
      await this.transport.stream("api/review", body, (line) => {
        if (generation !== this.generation || outcome) return;
        if ("progress" in line) this.#progress(line.progress, line.total);
        else if ("review" in line) outcome = { review: line.review };
        else if (line.cancelled) outcome = { cancelled: true };
        else if ("error" in line) outcome = { error: line.error };
      }, abort ? { signal: abort.signal } : undefined);
    } catch (error) {
      outcome = outcome || { failed: describeError(error), status: error && error.status };
    }
    if (generation !== this.generation) return; // cancelled or restarted meanwhile
    if (outcome && outcome.review) {
      await numbered;
      if (generation !== this.generation) return;
      this.review = outcome.review;
      this.#showReview();
    } else if (outcome && (outcome.cancelled || outcome.status === 409)) {
      this.#enter("cancelled");
      this.#message("The review was cancelled.", true);
    } else {
      this.#enter("error");
      let words = "The server stopped answering before the review was finished.";
      if (outcome && outcome.failed) words = `${outcome.failed} The review did not finish.`;
      else if (outcome) words = `The review failed on the server: ${outcome.error}`;
      this.#message(words, true);
    }
  }

  /** The start position's move number, from the server (no FEN is read here). */
  async #numberMoves(game, generation) {
    try {
      const start = await this.transport.request("api/state", { fen: game.fen, moves: [] });
      if (generation === this.generation && Number.isInteger(start.fullmove)) {
        this.startNumber = start.fullmove;
      }
    } catch {
      // the numbers start at 1: the review itself says what failed, if anything did
    }
  }

  #abortAnalysis() {
    this.generation += 1;
    if (this.abort) this.abort.abort(); // stop reading; the server also stops a dropped review
    this.abort = null;
    try {
      const sent = this.transport.cancel(this.clientId);
      if (sent && typeof sent.catch === "function") sent.catch(() => {});
    } catch {
      // the server is gone: nothing runs there to stop
    }
  }

  /** `done` of `total` positions analysed (the server counts the start and every move's
   * position): said as the move being analysed, the bar as the share done. */
  #progress(done, total) {
    const { progressText, progressBar } = this.el;
    const moves = this.game.moves.length;
    const shown = Math.min(Math.max(done + 1, 1), moves);
    progressText.textContent = `Analysing move ${shown} of ${moves}`;
    progressBar.max = Math.max(total, 1);
    progressBar.value = Math.min(done, total);
  }

  #message(text, retry) {
    this.el.messageText.textContent = text;
    this.el.retry.hidden = !retry;
  }

  // --- the review -------------------------------------------------------------------------------

  #showReview() {
    this.#enter("reviewed");
    const review = this.review;
    this.#drawGraph(review.moves);
    this.#drawSummary(review);
    this.#drawMoves(review.moves);
    const lessons = lessonsOf(review.moves, this.game.human);
    this.el.learn.hidden = !lessons.length;
    this.el.noLessons.hidden = Boolean(lessons.length);
    this.select(null);
  }

  #drawSummary(review) {
    const table = this.el.summary;
    table.replaceChildren();
    for (const color of ["white", "black"]) {
      const side = el("div", { class: "review-side", "data-color": color });
      const name = color === "white" ? "White" : "Black";
      const you = color === this.game.human ? " (you)" : "";
      side.append(el("h3", {}, `${name}${you}`));
      const accuracy = review.accuracy && review.accuracy[color];
      side.append(
        el("p", { class: "review-accuracy" },
          el("strong", {}, accuracy == null ? "–" : `${Math.round(accuracy)}%`), " accuracy"),
      );
      const counts = (review.judgements && review.judgements[color]) || {};
      const list = el("ul", { class: "review-counts" });
      for (const judgement of JUDGEMENT_ORDER) {
        const count = counts[judgement] || 0;
        const [, plural, singular] = JUDGEMENT_NAMES[judgement];
        list.append(
          el("li", { "data-judgement": judgement, "data-count": String(count) },
            el("span", { class: "review-glyph" }, GLYPHS[judgement]),
            ` ${count} ${count === 1 ? singular : plural}`),
        );
      }
      side.append(list);
      table.append(side);
    }
  }

  #drawMoves(moves) {
    const list = this.el.moves;
    list.replaceChildren();
    const firstColor = moves.length ? moves[0].color : "white";
    const start = this.startNumber;
    let column = 0; // 0: a new row starts (number next), 1: White's cell filled, 2: row complete
    const number = (move) => {
      const label = moveLabel(move, start, firstColor);
      return el("span", { class: "review-number" }, label.replace("…", "."));
    };
    const gap = () => el("span", { class: "review-gap" }, "…");
    for (const move of moves) {
      if (move.color === "white" || column === 0) {
        if (column === 1) list.append(gap()); // a White move after a comment: Black's cell empty
        list.append(number(move));
        if (move.color === "black") list.append(gap());
      }
      const glyph = move.judgement ? GLYPHS[move.judgement] : "";
      const button = el(
        "button",
        {
          type: "button", class: "review-move", "data-ply": String(move.ply),
          "data-judgement": move.judgement || "", title: formatScore(move.eval_after),
        },
        move.san,
        glyph ? el("span", { class: "review-glyph" }, glyph) : "",
      );
      button.addEventListener("click", () => this.#jump(move.ply));
      list.append(button);
      column = move.color === "white" ? 1 : 0;
      if (move.judgement && hasBetter(move)) {
        if (column === 1) list.append(gap());
        const [name] = JUDGEMENT_NAMES[move.judgement];
        const better = el(
          "button",
          { type: "button", class: "review-best", "data-ply": String(move.ply),
            "data-best-move": move.best_move },
          `Best was ${move.best_san}`,
        );
        better.addEventListener("click", () => this.#jumpToBetter(move));
        list.append(el("p", { class: "review-comment", "data-judgement": move.judgement },
          `${name}. `, better, "."));
        column = 0;
      }
    }
  }

  /** The position after `ply`, with the engine's best move there as a blue arrow. */
  #jump(ply) {
    if (this.state !== "reviewed") return;
    this.onJump(ply);
    this.select(ply);
  }

  /** The position before a judged move, with the better move as a green arrow. */
  #jumpToBetter(move) {
    if (this.state !== "reviewed") return;
    this.onJump(move.ply - 1);
    this.select(move.ply - 1);
    const better = squaresOf(move.best_move);
    const played = squaresOf(move.move);
    const arrows = [];
    if (played) arrows.push({ ...played, brush: "red" });
    if (better) arrows.push({ ...better, brush: "green" });
    this.board.arrows(arrows);
  }

  // --- the graph --------------------------------------------------------------------------------

  #drawGraph(moves) {
    const svg = this.el.graph;
    svg.replaceChildren();
    const percents = whitePercents(moves);
    const plies = Math.max(percents.length - 1, 1);
    const x = (ply) => (ply / plies) * GRAPH_WIDTH;
    const y = (percent) =>
      GRAPH_MARGIN + ((100 - percent) / 100) * (GRAPH_HEIGHT - 2 * GRAPH_MARGIN);
    const mid = GRAPH_HEIGHT / 2;
    const line = percents.map((p, ply) => `${x(ply).toFixed(1)},${y(p).toFixed(1)}`).join(" L");
    const below = `M0,${GRAPH_HEIGHT} L${line} L${x(plies)},${GRAPH_HEIGHT} Z`;
    const above = `M0,0 L${line} L${x(plies)},0 Z`;
    const top = `review-top-${this.id}`;
    const bottom = `review-bottom-${this.id}`;
    svg.append(
      svgEl("defs", {},
        svgEl("clipPath", { id: top }, svgEl("rect", { x: 0, y: 0, width: GRAPH_WIDTH,
          height: mid })),
        svgEl("clipPath", { id: bottom }, svgEl("rect", { x: 0, y: mid, width: GRAPH_WIDTH,
          height: mid }))),
      svgEl("path", { d: below, class: "review-graph-white", "clip-path": `url(#${top})` }),
      svgEl("path", { d: above, class: "review-graph-black", "clip-path": `url(#${bottom})` }),
      svgEl("line", { x1: 0, y1: mid, x2: GRAPH_WIDTH, y2: mid, class: "review-graph-mid",
        "vector-effect": "non-scaling-stroke" }),
      svgEl("path", { d: `M${line}`, class: "review-graph-line",
        "vector-effect": "non-scaling-stroke" }),
    );
    const cursor = svgEl("line", { class: "review-graph-cursor", y1: 0, y2: GRAPH_HEIGHT,
      "vector-effect": "non-scaling-stroke", visibility: "hidden" });
    svg.append(cursor);
    this.el.cursor = cursor;
    for (const move of moves) {
      if (!move.judgement) continue;
      const dot = svgEl("path", {
        d: `M${x(move.ply)},${y(percents[move.ply])} l0.01,0`,
        class: "review-graph-dot", "data-ply": String(move.ply),
        "data-judgement": move.judgement, "vector-effect": "non-scaling-stroke",
      });
      dot.append(svgEl("title", {}, `${move.san}${GLYPHS[move.judgement]}`));
      svg.append(dot);
    }
    svg.setAttribute("aria-label", "White's winning chances, move by move; click to go there");
    this.graphPlies = percents.length - 1;
  }

  #drawCursor() {
    const cursor = this.el.cursor;
    if (!cursor) return;
    const ply = this.selected;
    if (ply == null || !this.graphPlies) {
      cursor.setAttribute("visibility", "hidden");
      return;
    }
    const at = (ply / this.graphPlies) * GRAPH_WIDTH;
    cursor.setAttribute("x1", at);
    cursor.setAttribute("x2", at);
    cursor.setAttribute("visibility", "visible");
  }

  #graphClick(event) {
    if (!this.graphPlies) return;
    const box = this.el.graph.getBoundingClientRect();
    const fraction = (event.clientX - box.left) / Math.max(box.width, 1);
    const ply = Math.round(Math.min(Math.max(fraction, 0), 1) * this.graphPlies);
    this.#jump(ply);
  }

  // --- learn from your mistakes -----------------------------------------------------------------

  #startLearning() {
    if (this.state !== "reviewed") return;
    const list = lessonsOf(this.review.moves, this.game.human);
    if (!list.length) return;
    this.lesson = { list, index: 0, results: [], position: null, prefix: [], busy: false,
      previousHandler: null, attempts: 0, shown: false };
    this.board.setOrientation(this.game.human);
    const previous = this.board.setMoveHandler((uci) => this.#try(uci));
    this.lesson.previousHandler = typeof previous === "function" ? previous : null;
    this.el.summaryBox.hidden = true;
    this.el.lessonBox.hidden = false;
    this.#enter("learning");
    this.#setUpLesson();
  }

  async #setUpLesson() {
    const lesson = this.lesson;
    const move = lesson.list[lesson.index];
    const generation = ++this.generation;
    lesson.prefix = this.game.moves.slice(0, move.ply - 1);
    lesson.position = null;
    lesson.attempts = 0;
    lesson.shown = false;
    const start = this.startNumber;
    const label = moveLabel(move, start, this.review.moves[0].color);
    const [name, , singular] = JUDGEMENT_NAMES[move.judgement];
    this.el.lessonCount.textContent = `${lesson.index + 1} of ${lesson.list.length}`;
    this.el.lessonPrompt.textContent = `You played ${label}${label.endsWith(".") ? " " : ""}`
      + `${move.san}${GLYPHS[move.judgement]} here, ${/^[aeiou]/i.test(singular) ? "an" : "a"} `
      + `${singular}. Find a better move for ${move.color === "white" ? "White" : "Black"}.`;
    this.el.lessonPrompt.dataset.judgement = move.judgement;
    this.el.lessonPrompt.title = name;
    this.#feedback("", "");
    this.el.solution.hidden = false;
    this.el.next.textContent = "Skip";
    try {
      const position = await this.transport.request("api/state",
        { fen: this.game.fen, moves: lesson.prefix });
      if (generation !== this.generation) return;
      lesson.position = position;
      this.#showLessonBoard(true);
    } catch (error) {
      if (generation !== this.generation) return;
      this.#feedback("error", describeError(error));
    }
  }

  #showLessonBoard(movable, position = this.lesson.position) {
    this.board.show({
      fen: position.fen, orientation: this.game.human, turn: position.turn,
      dests: movable ? position.dests : {}, legalMoves: movable ? position.legal_moves : [],
      lastMove: squaresList(position.last_move),
      check: position.check || false, movable, premovable: false,
    });
    this.board.arrows([]);
  }

  async #try(uci) {
    const lesson = this.lesson;
    if (this.state !== "learning" || !lesson || !lesson.position || lesson.busy) return;
    const generation = this.generation;
    lesson.busy = true;
    lesson.attempts += 1;
    this.#feedback("pending", "Checking your move…");
    try {
      const judged = await this.transport.request("api/judge",
        { fen: this.game.fen, moves: lesson.prefix, move: uci, client: this.clientId });
      if (generation !== this.generation) return;
      const verdict = VERDICTS[judged.verdict] || VERDICTS.mistake;
      if (verdict.solved) {
        if (!lesson.shown) lesson.results[lesson.index] = lesson.attempts === 1 ? "found" : "found-later";
        const after = await this.transport.request("api/state",
          { fen: this.game.fen, moves: [...lesson.prefix, uci] });
        if (generation !== this.generation) return;
        this.#showLessonBoard(false, after);
        const detail = judged.verdict === "best" || !judged.best_san
          ? `${judged.san} ${verdict.detail}`
          : `${judged.san} ${verdict.detail} The engine's choice was ${judged.best_san}.`;
        this.#feedback("good", verdict.words, detail);
        this.el.solution.hidden = true;
        this.el.next.textContent = this.#isLastLesson() ? "Finish" : "Next";
      } else {
        this.#showLessonBoard(true);
        const tried = squaresOf(uci);
        if (tried) this.board.arrows([{ ...tried, brush: "red" }]);
        this.#feedback(judged.verdict === "inaccuracy" ? "better" : "wrong",
          verdict.words, `${judged.san} ${verdict.detail}`);
      }
    } catch (error) {
      if (generation !== this.generation) return;
      this.#showLessonBoard(true);
      this.#feedback("error", describeError(error));
    } finally {
      if (generation === this.generation) lesson.busy = false;
    }
  }

  #showSolution() {
    const lesson = this.lesson;
    if (!lesson) return;
    const move = lesson.list[lesson.index];
    lesson.shown = true;
    if (!lesson.results[lesson.index]) lesson.results[lesson.index] = "shown";
    const better = squaresOf(move.best_move);
    if (lesson.position) this.#showLessonBoard(true);
    if (better) this.board.arrows([{ ...better, brush: "green" }]);
    this.#feedback("solution", `The best move was ${move.best_san}.`,
      "Play it on the board, or go on.");
    this.el.next.textContent = this.#isLastLesson() ? "Finish" : "Next";
  }

  #next() {
    const lesson = this.lesson;
    if (!lesson) return;
    if (!lesson.results[lesson.index]) lesson.results[lesson.index] = "skipped";
    if (this.#isLastLesson()) {
      this.#finishLearning();
      return;
    }
    lesson.index += 1;
    this.#setUpLesson();
  }

  #isLastLesson() {
    return this.lesson.index >= this.lesson.list.length - 1;
  }

  #finishLearning() {
    const lesson = this.lesson;
    const total = lesson.list.length;
    const found = lesson.results.filter((r) => r === "found" || r === "found-later").length;
    const first = lesson.results.filter((r) => r === "found").length;
    this.#stopLearning();
    const list = this.el.summaryList;
    list.replaceChildren();
    const words = { found: "found at once", "found-later": "found after a retry",
      shown: "solution shown", skipped: "skipped" };
    const start = this.startNumber;
    lesson.list.forEach((move, i) => {
      const label = moveLabel(move, start, this.review.moves[0].color);
      const result = lesson.results[i] || "skipped";
      list.append(el("li", { "data-result": result },
        `${label}${label.endsWith(".") ? " " : ""}${move.san}${GLYPHS[move.judgement]}: `
        + `${words[result]} (best was ${move.best_san})`));
    });
    this.el.summaryText.textContent = `You found ${found} of ${total} better `
      + `${total === 1 ? "move" : "moves"}${first !== found ? ` (${first} at the first try)` : ""}.`;
    this.el.summaryBox.hidden = false;
    this.#enter("reviewed");
    this.select(null);
    this.onDone();
  }

  /** Give the board back to the page: its move handler, no arrows. */
  #stopLearning() {
    const lesson = this.lesson;
    this.lesson = null;
    this.generation += 1;
    if (!lesson) return;
    this.board.setMoveHandler(lesson.previousHandler);
    this.board.arrows([]);
  }

  #leaveLearning() {
    if (this.state !== "learning") return;
    this.#stopLearning();
    this.el.summaryBox.hidden = true;
    this.#enter("reviewed");
    this.select(null);
    this.onDone();
  }

  #feedback(kind, text, detail = "") {
    const box = this.el.feedback;
    box.dataset.kind = kind;
    box.replaceChildren(el("strong", {}, text), detail ? el("span", {}, ` ${detail}`) : "");
  }

  // --- the DOM ----------------------------------------------------------------------------------

  #build() {
    const button = (text, cls, onClick) => {
      const b = el("button", { type: "button", class: cls }, text);
      b.addEventListener("click", onClick);
      return b;
    };
    const progressText = el("p", { class: "review-status", role: "status" });
    const progressBar = el("progress", { class: "review-bar", max: "1", value: "0" });
    const cancel = button("Cancel", "review-cancel", () => this.#cancelAnalysis());
    const progress = el("div", { class: "review-progress" }, progressText, progressBar, cancel);

    const messageText = el("p", { class: "review-message-text", role: "alert" });
    const retry = button("Try again", "review-retry", () => this.open());
    const message = el("div", { class: "review-message" }, messageText, retry);

    const graph = svgEl("svg", { class: "review-graph", viewBox: `0 0 ${GRAPH_WIDTH} `
      + `${GRAPH_HEIGHT}`, preserveAspectRatio: "none", role: "img" });
    graph.addEventListener("click", (event) => this.#graphClick(event));
    const summary = el("div", { class: "review-summary" });
    const learn = button("Learn from your mistakes", "review-learn", () => this.#startLearning());
    const noLessons = el("p", { class: "review-clean" },
      "No mistakes of yours to learn from: well played.");
    const summaryText = el("p", { class: "review-learned-text" });
    const summaryList = el("ul", { class: "review-learned-list" });
    const summaryBox = el("div", { class: "review-learned" },
      el("h3", {}, "Learn from your mistakes: done"), summaryText, summaryList);
    summaryBox.hidden = true;
    const moves = el("div", { class: "review-moves" });
    const result = el("div", { class: "review-result" },
      graph, summary, summaryBox, el("div", { class: "review-actions" }, learn, noLessons), moves);

    const lessonCount = el("span", { class: "review-lesson-count" });
    const lessonPrompt = el("p", { class: "review-prompt" });
    const feedback = el("p", { class: "review-feedback", role: "status", "aria-live": "polite" });
    const solution = button("Show the solution", "review-solution", () => this.#showSolution());
    const next = button("Skip", "review-next", () => this.#next());
    const stop = button("Back to the review", "review-stop", () => this.#leaveLearning());
    const lessonBox = el("div", { class: "review-lesson" },
      el("h3", {}, "Learn from your mistakes ", lessonCount), lessonPrompt, feedback,
      el("div", { class: "review-lesson-actions" }, solution, next, stop));
    const learning = el("div", { class: "review-learning" }, lessonBox);

    this.container.classList.add("fc-review");
    this.container.replaceChildren(
      el("h2", { class: "review-title" }, "Computer analysis"),
      progress, message, result, learning);
    this.el = { progress, progressText, progressBar, message, messageText, retry, result, graph,
      summary, learn, noLessons, summaryBox, summaryText, summaryList, moves, learning, lessonBox,
      lessonCount, lessonPrompt, feedback, solution, next, cursor: null };
  }
}

/** Scrolls `list` (only it, not the page) so that `item` and the comment under it show. */
function scrollWithin(list, item) {
  const top = item.offsetTop; // the list is positioned (review.css): offsets are within it
  const bottom = top + item.offsetHeight * 2.5;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
}

function squaresList(uci) {
  const squares = squaresOf(uci);
  return squares ? [squares.from, squares.to] : undefined;
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children.filter((child) => child !== "" && child != null));
  return node;
}

function svgEl(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}
