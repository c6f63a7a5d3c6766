// The match view's DOM and its drawing: a header (who plays, the time control, the games played
// of those planned, a progress line, the status and Stop), the games in play as small boards
// (boards_view.js) and under them the SPRT (sprt_view.js), beside them the cards of the numbers
// (stats_view.js: the score with the pentanomial, the crosstable), and under them the finished games with the final position
// of the one chosen (games_view.js). It reads the controller (ctrl.js) and draws; the clicks go
// back to it. Tests find the controls by `data-action` and what is shown by `data-testid`;
// root.dataset.status is the kernel's status of the match.

import { el } from "../ui/dom.js";
import { BoardsView } from "./boards_view.js";
import { statusWords } from "./format.js";
import { GamesView } from "./games_view.js";
import { sprtContents } from "./sprt_view.js";
import { crosstableContents, scoreContents } from "./stats_view.js";

/** The match view's elements in `root`. */
export function buildLayout(root) {
  const title = el("h2", { class: "match-title", "data-testid": "title" });
  const meta = el("p", { class: "match-meta", "data-testid": "meta" });
  const status = el("span", { class: "match-status", "data-testid": "status", role: "status" });
  const stop = el("button", {
    type: "button", class: "match-stop", "data-action": "stop", title: "Stop the match: the games played so far stay",
  }, "Stop");
  const progress = el("div", { class: "match-progress-fill" });
  const head = el("header", { class: "match-head" },
    el("div", { class: "match-heading" }, title, meta), status, stop);
  const progressBar = el("div", { class: "match-progress", "aria-hidden": "true" }, progress);

  const messageText = el("span");
  const message = el("p", {
    class: "message", "data-kind": "error", role: "alert", "data-testid": "error", hidden: true,
  }, messageText);

  const boards = el("div", { class: "mini-games", "data-testid": "boards" });
  const idle = el("p", { class: "match-idle", "data-testid": "idle" });
  const boardsArea = el("section", { class: "match-boards", "aria-label": "Games in play" },
    el("h2", { class: "section-title" }, "Games in play"), boards, idle);

  const score = el("section", { class: "card match-score", "aria-label": "Score", "data-testid": "score" });
  const sprt = el("section", { class: "card match-sprt", "aria-label": "SPRT", "data-testid": "sprt", hidden: true });
  const cross = el("section", { class: "card match-cross", "aria-label": "Crosstable", hidden: true });
  const side = el("div", { class: "match-side" }, score, cross);

  const count = el("span", { class: "games-count", "data-testid": "games-count" });
  const body = el("tbody");
  const columns = [["#", "num"], ["White", "who"], ["Black", "who"], ["Result", "result"], ["End · Opening", "end"]];
  const table = el("table", { class: "games-table", "data-testid": "games-table" },
    el("colgroup", {}, ...columns.map(([, kind]) => el("col", { class: `col-${kind}` }))),
    el("thead", {}, el("tr", {}, ...columns.map(([name, kind]) => el("th", { class: kind }, name)))),
    body);
  const empty = el("p", { class: "games-empty" }, "No game has finished yet.");
  const viewerBoard = el("div", { class: "games-viewer-board" });
  const reason = el("p", { class: "final-reason", "data-testid": "final-reason" });
  const pgn = el("button", { type: "button", class: "link-button", "data-action": "pgn" }, "Download PGN");
  const pgnStatus = el("span", { class: "pgn-status", role: "status" });
  const viewer = el("div", { class: "games-viewer", "data-testid": "final-position", hidden: true },
    viewerBoard, reason, el("p", { class: "final-links" }, pgn, pgnStatus));
  const gamesCard = el("section", { class: "card match-games", "aria-label": "Finished games", "data-testid": "games" },
    el("div", { class: "card-head" }, el("h2", {}, "Finished games"), count),
    empty,
    el("div", { class: "games-body" }, viewer, el("div", { class: "games-scroll" }, table)));
  const gamesBody = gamesCard.querySelector(".games-body");

  root.classList.add("fc-play", "fc-match");
  root.dataset.status = "waiting";
  root.replaceChildren(head, progressBar, message,
    el("div", { class: "match-body" }, boardsArea, sprt, side), gamesCard);
  return { title, meta, status, stop, progress, message, messageText, boards, idle, boardsArea, score, sprt,
    cross, side, count, body, table, gamesBody, empty, viewer, viewerBoard, reason, pgn, pgnStatus, gamesCard };
}

/** What the match is, in a title: "A vs B", "Gauntlet: A vs 3 opponents", "Round robin: 4 players". */
export function matchTitle(state) {
  const players = state.players || [];
  if (state.kind === "gauntlet") return `Gauntlet: ${players[0]} vs ${players.length - 1} opponents`;
  if (state.kind === "roundrobin") return `Round robin: ${players.length} players`;
  return players.length === 2 ? `${players[0]} vs ${players[1]}` : "Match";
}

export class MatchView {
  constructor(root, ctrl) {
    this.root = root;
    this.ctrl = ctrl;
    this.ui = buildLayout(root);
    this.boards = new BoardsView(this.ui.boards, ctrl);
    this.games = new GamesView(this.ui, ctrl);
    this.ui.stop.addEventListener("click", () => ctrl.stop());
    this.drawn = {}; // the state each card was last drawn from
  }

  render() {
    const { root, ui, ctrl } = this;
    const state = ctrl.state;
    const status = ctrl.stopAsked && !ctrl.over ? "stopping" : ctrl.status;
    root.dataset.status = status;
    root.dataset.over = ctrl.over ? "true" : "false";
    const sprt = state.sprt || null;
    root.dataset.sprt = sprt ? "true" : "false";
    ui.title.textContent = matchTitle(state);
    ui.title.title = (state.players || []).join(", ");
    const played = state.played || 0;
    const planned = state.planned || 0;
    const inPlay = ctrl.boards.length;
    ui.meta.textContent = [state.time_control && state.time_control !== "-" ? state.time_control : null,
      `${played} of ${planned} games`, !ctrl.over && inPlay ? `${inPlay} in play` : null].filter(Boolean).join(" · ");
    ui.progress.style.width = `${planned ? (100 * played) / planned : 0}%`;
    ui.status.textContent = statusWords(status, sprt && sprt.decision);
    ui.status.dataset.status = status;
    ui.status.dataset.decision = (sprt && sprt.decision) || "";
    ui.stop.hidden = ctrl.over;
    ui.stop.disabled = !ctrl.stoppable;

    const problem = state.error || ctrl.problem;
    ui.message.hidden = !problem;
    ui.messageText.textContent = problem ? (state.error ? `The match failed: ${problem}` : problem) : "";

    this.boards.render();
    ui.boardsArea.hidden = ctrl.over && inPlay === 0;
    ui.idle.hidden = inPlay > 0;
    ui.idle.textContent = status === "waiting" ? "The match has not started." : "Between games…";

    if (this.drawn.score !== state.score && state.score) {
      ui.score.replaceChildren(...scoreContents(state.score));
    }
    if (this.drawn.sprt !== sprt || this.drawn.over !== ctrl.over) {
      ui.sprt.hidden = !sprt;
      if (sprt) ui.sprt.replaceChildren(...sprtContents(sprt, played, ctrl.over));
    }
    if (this.drawn.cross !== state.crosstable) {
      ui.cross.hidden = !state.crosstable;
      if (state.crosstable) ui.cross.replaceChildren(...crosstableContents(state.crosstable));
    }
    this.drawn = { score: state.score, sprt, cross: state.crosstable, over: ctrl.over };
    this.games.render();
  }

  destroy() {
    this.boards.destroy();
    this.games.destroy();
  }
}
