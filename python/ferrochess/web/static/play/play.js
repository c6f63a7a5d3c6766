// The play page: draws the board, takes the human's moves (click-click or drag), asks the
// stateless JSON API for the position and the engine's replies, and keeps the game
// ({start FEN, UCI moves, human colour, level, book, flipped}) in localStorage so it survives a
// reload. Every change to the game bumps `epoch`; an answer that comes back for an older epoch is
// dropped, so a slow engine reply can never land in a game that was taken back or restarted.
"use strict";

(() => {
  const STORAGE_KEY = "ferrochess.play.v1";
  const START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
  const FILES = "abcdefgh";
  const HINT_LEVEL = 10;
  const BUSY_RETRIES = 3; // automatic retries of a 503 before giving up
  const DEFAULT_RETRY_SECONDS = 1;
  const DRAG_THRESHOLD_PX = 4; // a press that moves less than this is a click
  const EVAL_CLAMP_CP = 1000; // the bar is full at +-10 pawns
  const TABLEBASE_CP = 15000; // scores beyond this are tablebase wins (the engine's ±(20000 - dtz))
  const CLIPBOARD_TIMEOUT_MS = 1500;
  const PIECE_NAMES = { K: "king", Q: "queen", R: "rook", B: "bishop", N: "knight", P: "pawn" };

  const root = document.body.dataset.root || "/";
  const $ = (id) => document.getElementById(id);
  const boardEl = $("board");

  // --- state -------------------------------------------------------------------------------------

  /** What is saved: the game and the player's settings. */
  let game = null;
  /** The server's description of the current position (POST /api/state), or null before the first. */
  let position = null;
  /** The board drawn before the server confirmed the human's move: {pieces, lastMove}. */
  let optimistic = null;
  let epoch = 0;
  let loading = true; // waiting for a position from the server
  let engineBusy = false; // waiting for the engine's move (from the human's move on)
  let engineFailed = false;
  let selected = null;
  let hint = null; // null, {pending: true} or {from, to, san}
  let promotion = null; // {from, to} while the chooser is open
  let drag = null;
  let engineInfo = null; // the last engine reply, for the panel
  const squares = {}; // name -> div.square

  // --- small helpers -----------------------------------------------------------------------------

  const other = (color) => (color === "white" ? "black" : "white");
  const fenTurn = (fen) => (fen.split(" ")[1] === "b" ? "black" : "white");
  const fenFullmove = (fen) => parseInt(fen.split(" ")[5], 10) || 1;
  const pieceUrl = (code) => `${root}pieces/${code}.svg`;
  const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

  /** The colour that plays ply `index` (0 is the first move from the start FEN). */
  function moverOf(index) {
    const first = fenTurn(game.startFen);
    return index % 2 === 0 ? first : other(first);
  }

  /** The move number and colour of ply `index`, for move lists and lines. */
  function plyLabel(index) {
    const whiteFirst = fenTurn(game.startFen) === "white";
    const offset = index + (whiteFirst ? 0 : 1);
    return { number: fenFullmove(game.startFen) + Math.floor(offset / 2), white: offset % 2 === 0 };
  }

  function piecesFromFen(fen) {
    const pieces = {};
    fen.split(" ")[0].split("/").forEach((row, i) => {
      let file = 0;
      for (const ch of row) {
        if (ch >= "1" && ch <= "8") {
          file += Number(ch);
        } else {
          const color = ch === ch.toUpperCase() ? "w" : "b";
          pieces[FILES[file] + (8 - i)] = color + ch.toUpperCase();
          file += 1;
        }
      }
    });
    return pieces;
  }

  /** The pieces after `uci`, for drawing the human's move before the server answers. */
  function afterMove(pieces, uci) {
    const next = { ...pieces };
    const from = uci.slice(0, 2);
    const to = uci.slice(2, 4);
    const piece = next[from];
    if (!piece) return next;
    delete next[from];
    const fileStep = FILES.indexOf(to[0]) - FILES.indexOf(from[0]);
    if (piece[1] === "K" && Math.abs(fileStep) === 2) {
      const rank = from[1];
      const [rookFrom, rookTo] = fileStep > 0 ? ["h", "f"] : ["a", "d"];
      next[rookTo + rank] = next[rookFrom + rank];
      delete next[rookFrom + rank];
    }
    if (piece[1] === "P" && fileStep !== 0 && !next[to]) delete next[to[0] + from[1]];
    next[to] = uci.length > 4 ? piece[0] + uci[4].toUpperCase() : piece;
    return next;
  }

  function formatScore(score) {
    if (!score) return "–";
    if (score.mate !== undefined) return `#${score.mate}`;
    const cp = score.cp;
    if (Math.abs(cp) >= TABLEBASE_CP) return cp > 0 ? "+TB win" : "-TB win";
    return `${cp >= 0 ? "+" : "-"}${(Math.abs(cp) / 100).toFixed(2)}`;
  }

  /** White's share of the evaluation bar, in percent. */
  function whiteShare(score) {
    if (!score) return 50;
    if (score.mate !== undefined) return score.mate > 0 ? 100 : score.mate < 0 ? 0 : 50;
    const cp = Math.max(-EVAL_CLAMP_CP, Math.min(EVAL_CLAMP_CP, score.cp));
    return 50 + (50 * cp) / EVAL_CLAMP_CP;
  }

  function formatTime(ms) {
    if (ms === undefined || ms === null) return "–";
    if (ms < 1) return "<1 ms";
    return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
  }

  function describeSource(reply) {
    if (reply.source === "book") {
      return reply.book_weight !== undefined ? `Opening book (weight ${reply.book_weight})` : "Opening book";
    }
    if (reply.source === "tablebase") {
      const verdicts = { 2: "win", 1: "win spoiled by the 50-move rule", 0: "draw", "-1": "loss saved by the 50-move rule", "-2": "loss" };
      const verdict = verdicts[reply.wdl];
      const parts = [`WDL ${reply.wdl}`];
      if (reply.dtz !== undefined && reply.dtz !== null) parts.push(`DTZ ${reply.dtz}`);
      return `Tablebase (${parts.join(", ")})${verdict ? ` — a ${verdict} for the engine` : ""}`;
    }
    return "Search";
  }

  /** A SAN line numbered from ply `index`: "12... Nf6 13. Bg5". */
  function numberedLine(sans, index) {
    return sans
      .map((san, i) => {
        const { number, white } = plyLabel(index + i);
        if (white) return `${number}. ${san}`;
        return i === 0 ? `${number}... ${san}` : san;
      })
      .join(" ");
  }

  // --- saving ------------------------------------------------------------------------------------

  function save() {
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(game));
    } catch (error) {
      // Storage full or disabled: the game still plays, it just won't survive a reload.
    }
  }

  function restore() {
    let saved;
    try {
      saved = JSON.parse(localStorage.getItem(STORAGE_KEY) || "null");
    } catch (error) {
      saved = null;
    }
    const valid =
      saved &&
      typeof saved.startFen === "string" &&
      Array.isArray(saved.moves) &&
      saved.moves.every((move) => typeof move === "string") &&
      (saved.human === "white" || saved.human === "black");
    if (!valid) return null;
    const level = Number(saved.level);
    return {
      startFen: saved.startFen,
      moves: saved.moves,
      human: saved.human,
      level: levelExists(level) ? level : defaultLevel(),
      book: saved.book !== false,
      flipped: saved.flipped === true,
      colorChoice: ["white", "black", "random"].includes(saved.colorChoice) ? saved.colorChoice : "white",
    };
  }

  function levelExists(level) {
    return Array.from($("level").options).some((option) => Number(option.value) === level);
  }

  function defaultLevel() {
    const option = $("level").querySelector("option[selected]") || $("level").options[0];
    return Number(option.value);
  }

  // --- talking to the server ---------------------------------------------------------------------

  class ApiError extends Error {
    constructor(message, status, field, retryAfter) {
      super(message);
      this.status = status;
      this.field = field;
      this.retryAfter = retryAfter;
    }
  }

  async function api(path, body) {
    let response;
    try {
      response = await fetch(root + path, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    } catch (error) {
      throw new ApiError("cannot reach the server", 0, null, null);
    }
    let data = null;
    try {
      data = await response.json();
    } catch (error) {
      data = null;
    }
    if (!response.ok) {
      const message = data && data.error ? data.error : `${response.status} ${response.statusText}`;
      const retryAfter = parseFloat(response.headers.get("Retry-After"));
      throw new ApiError(message, response.status, data ? data.field : null,
                         Number.isFinite(retryAfter) ? retryAfter : null);
    }
    return data;
  }

  /** `api`, retrying a 503 after its Retry-After; null when the game changed meanwhile. */
  async function apiRetrying(path, body, forEpoch) {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await api(path, body);
      } catch (error) {
        if (error.status !== 503 || attempt >= BUSY_RETRIES || forEpoch !== epoch) throw error;
        const wait = error.retryAfter !== null ? error.retryAfter : DEFAULT_RETRY_SECONDS;
        showMessage(`The engines are busy; trying again in ${wait} s (${attempt + 1}/${BUSY_RETRIES}).`);
        await sleep(wait);
        if (forEpoch !== epoch) return null;
      }
    }
  }

  const gameBody = () => ({ fen: game.startFen, moves: game.moves.slice() });

  // --- the flow of a game ------------------------------------------------------------------------

  /** Forget everything tied to the previous position; answers still on their way are dropped. */
  function changeGame() {
    epoch += 1;
    engineBusy = false;
    engineFailed = false;
    selected = null;
    hint = null;
    closePromotion();
    endDrag();
  }

  function setPosition(state) {
    position = state;
    optimistic = null;
    loading = false;
  }

  /** Ask the server for the current game's position, then carry on. A saved game the server
   *  refuses (`restoring`) is replaced by a new one. */
  async function loadPosition(restoring = false) {
    const forEpoch = epoch;
    loading = true;
    render();
    try {
      const state = await api("api/state", gameBody());
      if (forEpoch !== epoch) return;
      setPosition(state);
      render();
      carryOn();
    } catch (error) {
      if (forEpoch !== epoch) return;
      loading = false;
      if (restoring && error.status === 400) {
        newGame();
        showMessage(`The saved game could not be restored (${error.message}); a new game started.`, true);
        return;
      }
      showMessage(`Could not load the game: ${error.message}`, true);
      render();
    }
  }

  /** After a new position: the engine moves when it is its turn. */
  function carryOn() {
    if (position && !position.status.over && position.turn !== game.human) askEngine();
    else render();
  }

  async function askEngine() {
    const forEpoch = epoch;
    engineBusy = true;
    engineFailed = false;
    render();
    let reply;
    try {
      reply = await apiRetrying("api/move", { ...gameBody(), level: game.level, book: game.book }, forEpoch);
    } catch (error) {
      if (forEpoch !== epoch) return;
      engineBusy = false;
      engineFailed = true;
      showMessage(`The engine could not move: ${error.message}`, true, { label: "Try again", action: askEngine });
      render();
      return;
    }
    if (reply === null || forEpoch !== epoch) return;
    changeGame();
    game.moves = reply.state.moves.slice();
    save();
    engineInfo = reply;
    setPosition(reply.state);
    clearMessage();
    render();
    carryOn();
  }

  function playHumanMove(uci) {
    const pieces = optimistic ? optimistic.pieces : piecesFromFen(position.fen);
    changeGame();
    game.moves.push(uci);
    save();
    optimistic = { pieces: afterMove(pieces, uci), lastMove: uci };
    engineBusy = true; // from now until the engine has answered the human cannot move
    clearMessage();
    render();
    const forEpoch = epoch;
    api("api/state", gameBody())
      .then((state) => {
        if (forEpoch !== epoch) return;
        engineBusy = false;
        setPosition(state);
        render();
        carryOn();
      })
      .catch((error) => {
        if (forEpoch !== epoch) return;
        changeGame();
        game.moves.pop();
        save();
        optimistic = null;
        showMessage(`That move was refused: ${error.message}`, true);
        render();
      });
  }

  /** How many plies a takeback removes: back to before the human's last move; 0 if none. */
  function takebackCount() {
    if (!game) return 0;
    for (let i = game.moves.length - 1; i >= 0; i -= 1) {
      if (moverOf(i) === game.human) return game.moves.length - i;
    }
    return 0;
  }

  function takeback() {
    const count = takebackCount();
    if (count === 0) return;
    changeGame();
    game.moves.splice(game.moves.length - count, count);
    engineInfo = null;
    save();
    clearMessage();
    loadPosition();
  }

  function newGame() {
    const choice = $("color").value;
    changeGame();
    game = {
      startFen: START_FEN,
      moves: [],
      human: choice === "random" ? (Math.random() < 0.5 ? "white" : "black") : choice,
      level: Number($("level").value),
      book: $("book").checked,
      flipped: false,
      colorChoice: choice,
    };
    engineInfo = null;
    save();
    clearMessage();
    showMessage(`New game: you play ${game.human}.`);
    loadPosition();
  }

  async function setUpFen(event) {
    event.preventDefault();
    const fen = $("fen-input").value.trim();
    if (!fen) {
      showMessage("Paste a FEN into the box first.", true);
      return;
    }
    $("load-fen").disabled = true;
    try {
      const state = await api("api/state", { fen, moves: [] });
      changeGame();
      game = { ...game, startFen: state.start_fen, moves: [], human: state.turn, flipped: false };
      engineInfo = null;
      save();
      setPosition(state);
      showMessage(`Position set up: you play ${game.human}.`);
      render();
      carryOn();
    } catch (error) {
      showMessage(error.message, true);
    } finally {
      $("load-fen").disabled = false;
    }
  }

  async function askHint() {
    if (!canMove()) return;
    const forEpoch = epoch;
    hint = { pending: true };
    render();
    try {
      const reply = await apiRetrying("api/move", { ...gameBody(), level: HINT_LEVEL, book: game.book }, forEpoch);
      if (reply === null || forEpoch !== epoch) return;
      hint = { from: reply.move.slice(0, 2), to: reply.move.slice(2, 4), san: reply.san };
    } catch (error) {
      if (forEpoch !== epoch) return;
      hint = null;
      showMessage(`No hint: ${error.message}`, true);
    }
    render();
  }

  // --- copying and downloading -------------------------------------------------------------------

  async function copyFen() {
    const fen = currentFen();
    const output = $("fen-output");
    output.value = fen;
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
      await Promise.race([
        navigator.clipboard.writeText(fen),
        sleep(CLIPBOARD_TIMEOUT_MS / 1000).then(() => { throw new Error("clipboard timed out"); }),
      ]);
      showMessage("FEN copied to the clipboard.");
    } catch (error) {
      output.focus();
      output.select();
      let copied = false;
      try {
        copied = document.execCommand("copy");
      } catch (ignored) {
        copied = false;
      }
      showMessage(copied ? "FEN copied to the clipboard." : "The FEN is selected: press Ctrl+C to copy it.");
    }
  }

  async function downloadPgn() {
    const engineName = `ferrochess (level ${game.level})`;
    const names = game.human === "white" ? { white: "You", black: engineName } : { white: engineName, black: "You" };
    try {
      const data = await api("api/pgn", { ...gameBody(), ...names });
      const url = URL.createObjectURL(new Blob([data.pgn], { type: "application/x-chess-pgn" }));
      const link = document.createElement("a");
      link.href = url;
      link.download = data.filename;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      showMessage(`Downloaded ${data.filename}.`);
    } catch (error) {
      showMessage(`No PGN: ${error.message}`, true);
    }
  }

  function currentFen() {
    return position ? position.fen : game.startFen;
  }

  // --- the status line ---------------------------------------------------------------------------

  function showMessage(text, isError = false, button = null) {
    const message = $("message");
    message.textContent = text;
    message.classList.toggle("error", isError);
    if (button) {
      const element = document.createElement("button");
      element.type = "button";
      element.textContent = button.label;
      element.addEventListener("click", () => {
        clearMessage();
        button.action();
      });
      message.append(element);
    }
  }

  function clearMessage() {
    showMessage("");
  }

  // --- drawing -----------------------------------------------------------------------------------

  const orientation = () => (game.flipped ? other(game.human) : game.human);

  function canMove() {
    return Boolean(
      position && game && !loading && !engineBusy && !promotion && !optimistic &&
      !position.status.over && position.turn === game.human,
    );
  }

  function destinations(from) {
    if (!position) return [];
    const found = new Set();
    for (const move of position.legal_moves) if (move.startsWith(from)) found.add(move.slice(2, 4));
    return Array.from(found);
  }

  function buildBoard() {
    for (let rank = 8; rank >= 1; rank -= 1) {
      for (const file of FILES) {
        const name = file + rank;
        const square = document.createElement("div");
        const dark = (FILES.indexOf(file) + rank) % 2 === 1;
        square.className = `square ${dark ? "dark" : "light"}`;
        square.dataset.square = name;
        squares[name] = square;
      }
    }
  }

  let drawnOrientation = null;

  function placeSquares() {
    const side = orientation();
    if (side === drawnOrientation) return;
    drawnOrientation = side;
    boardEl.dataset.orientation = side;
    $("eval-bar").dataset.orientation = side;
    const ranks = side === "white" ? [8, 7, 6, 5, 4, 3, 2, 1] : [1, 2, 3, 4, 5, 6, 7, 8];
    const files = side === "white" ? FILES.split("") : FILES.split("").reverse();
    const ordered = [];
    for (const rank of ranks) for (const file of files) ordered.push(squares[file + rank]);
    boardEl.replaceChildren(...ordered);
    for (const square of ordered) square.querySelectorAll(".coord").forEach((coord) => coord.remove());
    for (const rank of ranks) addCoord(squares[files[0] + rank], "rank", String(rank));
    for (const file of files) addCoord(squares[file + ranks[7]], "file", file);
  }

  function addCoord(square, kind, text) {
    const coord = document.createElement("span");
    coord.className = `coord ${kind}`;
    coord.setAttribute("aria-hidden", "true");
    coord.textContent = text;
    square.append(coord);
  }

  function renderBoard() {
    placeSquares();
    const pieces = optimistic ? optimistic.pieces : position ? piecesFromFen(position.fen) : {};
    const lastMove = optimistic ? optimistic.lastMove : position ? position.last_move : null;
    const check = optimistic || !position ? null : position.check;
    const movable = canMove();
    const legal = movable && selected ? new Set(destinations(selected)) : new Set();
    const hinted = hint && hint.from ? [hint.from, hint.to] : [];
    const lastSquares = lastMove ? [lastMove.slice(0, 2), lastMove.slice(2, 4)] : [];
    const mine = game.human[0];
    boardEl.classList.toggle("interactive", movable);
    for (const [name, square] of Object.entries(squares)) {
      const code = pieces[name];
      let img = square.querySelector("img.piece");
      if (code) {
        if (!img) {
          img = document.createElement("img");
          img.className = "piece";
          img.draggable = false;
          img.alt = "";
          square.prepend(img);
        }
        if (img.dataset.piece !== code) {
          img.dataset.piece = code;
          img.src = pieceUrl(code);
        }
        const dragging = drag && drag.started && drag.from === name;
        img.classList.toggle("dragging-origin", Boolean(dragging));
        square.setAttribute("aria-label", `${name}, ${code[0] === "w" ? "white" : "black"} ${PIECE_NAMES[code[1]]}`);
      } else {
        if (img) img.remove();
        square.setAttribute("aria-label", name);
      }
      square.classList.toggle("occupied", Boolean(code));
      square.classList.toggle("movable", movable && Boolean(code) && code[0] === mine);
      square.classList.toggle("selected", movable && selected === name);
      square.classList.toggle("legal", legal.has(name));
      square.classList.toggle("last-move", lastSquares.includes(name));
      square.classList.toggle("check", check === name);
      square.classList.toggle("hint", hinted.includes(name));
    }
  }

  function renderMoves() {
    const list = $("moves");
    const sans = position && !loading ? position.san : [];
    const items = [];
    let row = null;
    sans.forEach((san, index) => {
      const { number, white } = plyLabel(index);
      if (white || row === null) {
        row = document.createElement("li");
        const label = document.createElement("span");
        label.className = "move-number";
        label.textContent = `${number}.`;
        row.append(label);
        if (!white) row.append(emptyCell());
        items.push(row);
      }
      const move = document.createElement("span");
      move.className = "move";
      move.dataset.ply = String(index);
      move.textContent = san;
      if (index === sans.length - 1) move.classList.add("current");
      row.append(move);
    });
    if (row && row.children.length < 3) row.append(emptyCell(""));
    if (position && position.status.over && !loading) {
      const result = document.createElement("li");
      result.className = "result";
      result.textContent = position.status.result;
      items.push(result);
    }
    list.replaceChildren(...items);
    list.scrollTop = list.scrollHeight;
  }

  function emptyCell(text = "…") {
    const cell = document.createElement("span");
    cell.className = "move-empty";
    cell.textContent = text;
    return cell;
  }

  function renderEngine() {
    const info = engineInfo;
    let share = whiteShare(info ? info.score : null);
    if (position && !loading && position.status.over) {
      share = position.status.winner === "white" ? 100 : position.status.winner === "black" ? 0 : 50;
    }
    $("eval-fill").style.height = `${share}%`;
    $("eval-bar").setAttribute("aria-valuenow", String(Math.round(share)));
    $("eval-bar").title = info ? `Evaluation ${formatScore(info.score)}` : "No evaluation yet";
    $("score").textContent = info ? formatScore(info.score) : "–";
    $("depth").textContent = info ? String(info.depth) : "–";
    $("nodes").textContent = info ? Number(info.nodes).toLocaleString("en-US") : "–";
    $("time").textContent = info ? formatTime(info.time_ms) : "–";
    $("pv").textContent = info ? numberedLine(info.pv, info.state.moves.length - 1) : "";
    $("source").textContent = info ? describeSource(info) : "";
  }

  function renderGameOver() {
    const banner = $("game-over");
    if (!position || loading || !position.status.over) {
      banner.hidden = true;
      banner.replaceChildren();
      return;
    }
    const { result, reason, winner } = position.status;
    const headline = document.createElement("span");
    headline.className = "result";
    headline.textContent = result;
    const detail = document.createElement("span");
    detail.className = "reason";
    if (winner) {
      const who = winner === game.human ? "you win" : "ferrochess wins";
      detail.textContent = `${winner === "white" ? "White" : "Black"} wins by ${reason} (${who})`;
    } else {
      detail.textContent = `Draw by ${reason}`;
    }
    banner.replaceChildren(headline, document.createTextNode(" "), detail);
    banner.hidden = false;
  }

  function renderPlayers() {
    const levelOption = $("level").selectedOptions[0];
    const engineName = `ferrochess · level ${levelOption ? levelOption.textContent.trim() : game.level}`;
    const humanOnTop = orientation() !== game.human;
    const top = $("player-top-name");
    const bottom = $("player-bottom-name");
    const label = (name, color) => `${color === "white" ? "○" : "●"} ${name}`;
    top.textContent = humanOnTop ? label("You", game.human) : label(engineName, other(game.human));
    bottom.textContent = humanOnTop ? label(engineName, other(game.human)) : label("You", game.human);
    // The thinking indicator sits next to the engine's name.
    const engineRow = humanOnTop ? $("player-bottom") : $("player-top");
    if ($("thinking").parentElement !== engineRow) engineRow.append($("thinking"));
  }

  function renderControls() {
    $("thinking").hidden = !engineBusy;
    $("takeback").disabled = takebackCount() === 0;
    $("hint").disabled = !canMove() || Boolean(hint && hint.pending);
    $("copy-fen").disabled = !position;
    $("fen-output").value = currentFen();
    const hintText = $("hint-text");
    if (hint && hint.pending) hintText.textContent = "Looking for a good move…";
    else if (hint) hintText.textContent = `Hint: ${hint.san}`;
    else hintText.textContent = "";
    // The text is the name alone; the ECO code is drawn before it from data-eco.
    const opening = $("opening");
    const named = position && !loading ? position.opening : null;
    opening.textContent = named ? named.name : "";
    if (named) opening.dataset.eco = named.eco;
    else delete opening.dataset.eco;
  }

  function bodyState() {
    if (!position || loading) return "loading";
    if (position.status.over) return "over";
    if (engineBusy) return "thinking";
    if (position.turn === game.human) return "ready";
    return engineFailed ? "error" : "waiting";
  }

  function render() {
    if (!game) return;
    renderBoard();
    renderMoves();
    renderEngine();
    renderGameOver();
    renderPlayers();
    renderControls();
    document.body.dataset.state = bodyState();
  }

  // --- promotion ---------------------------------------------------------------------------------

  function openPromotion(from, to) {
    promotion = { from, to };
    const color = game.human[0];
    $("promotion").querySelectorAll("img[data-piece-letter]").forEach((img) => {
      img.src = pieceUrl(color + img.dataset.pieceLetter);
    });
    $("promotion").hidden = false;
    render();
    $("promotion").querySelector("button[data-promotion='q']").focus();
  }

  function closePromotion() {
    promotion = null;
    $("promotion").hidden = true;
  }

  function choosePromotion(letter) {
    if (!promotion) return;
    const uci = promotion.from + promotion.to + letter;
    closePromotion();
    if (position.legal_moves.includes(uci)) playHumanMove(uci);
    else render();
  }

  // --- moving pieces with the pointer ------------------------------------------------------------

  function tryMove(from, to) {
    const moves = position.legal_moves.filter((move) => move.slice(0, 4) === from + to);
    selected = null;
    if (moves.length === 0) {
      render();
    } else if (moves.some((move) => move.length === 5)) {
      openPromotion(from, to);
    } else {
      playHumanMove(moves[0]);
    }
  }

  function squareAt(x, y) {
    const rect = boardEl.getBoundingClientRect();
    const column = Math.floor(((x - rect.left) / rect.width) * 8);
    const row = Math.floor(((y - rect.top) / rect.height) * 8);
    if (column < 0 || column > 7 || row < 0 || row > 7) return null;
    return orientation() === "white" ? FILES[column] + (8 - row) : FILES[7 - column] + (row + 1);
  }

  function ownPieceOn(name) {
    const pieces = piecesFromFen(position.fen);
    return Boolean(pieces[name]) && pieces[name][0] === game.human[0];
  }

  function onPointerDown(event) {
    if (event.button !== 0 || !canMove()) return;
    const name = squareAt(event.clientX, event.clientY);
    if (!name) return;
    event.preventDefault();
    if (selected && destinations(selected).includes(name)) {
      tryMove(selected, name);
      return;
    }
    if (ownPieceOn(name)) {
      const wasSelected = selected === name;
      selected = name;
      drag = { from: name, x: event.clientX, y: event.clientY, pointerId: event.pointerId, started: false, wasSelected, ghost: null };
      try {
        boardEl.setPointerCapture(event.pointerId); // keep the drag when the pointer leaves the board
      } catch (ignored) {
        // Capture is a nicety; pointer events still reach the document without it.
      }
      render();
      return;
    }
    selected = null;
    render();
  }

  function onPointerMove(event) {
    if (!drag || event.pointerId !== drag.pointerId) return;
    if (!drag.started) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < DRAG_THRESHOLD_PX) return;
      const img = squares[drag.from].querySelector("img.piece");
      if (!img) return;
      const size = boardEl.getBoundingClientRect().width / 8;
      const ghost = document.createElement("img");
      ghost.className = "drag-piece";
      ghost.src = img.src;
      ghost.alt = "";
      ghost.style.width = `${size}px`;
      ghost.style.height = `${size}px`;
      document.body.append(ghost);
      drag.ghost = ghost;
      drag.size = size;
      drag.started = true;
      img.classList.add("dragging-origin");
    }
    drag.ghost.style.left = `${event.clientX - drag.size / 2}px`;
    drag.ghost.style.top = `${event.clientY - drag.size / 2}px`;
  }

  function onPointerUp(event) {
    if (!drag || event.pointerId !== drag.pointerId) return;
    const { from, started, wasSelected } = drag;
    endDrag();
    if (started) {
      const target = squareAt(event.clientX, event.clientY);
      if (target && target !== from && canMove() && destinations(from).includes(target)) {
        tryMove(from, target);
        return;
      }
    } else if (wasSelected) {
      selected = null; // a second click on the selected piece puts it down
    }
    render();
  }

  function endDrag() {
    if (!drag) return;
    if (drag.ghost) drag.ghost.remove();
    const img = squares[drag.from] && squares[drag.from].querySelector("img.piece");
    if (img) img.classList.remove("dragging-origin");
    drag = null;
  }

  // --- wiring ------------------------------------------------------------------------------------

  function settingsChanged() {
    game.level = Number($("level").value);
    game.book = $("book").checked;
    game.colorChoice = $("color").value;
    save();
    render();
  }

  function init() {
    buildBoard();
    game = restore() || {
      startFen: START_FEN,
      moves: [],
      human: "white",
      level: defaultLevel(),
      book: true,
      flipped: false,
      colorChoice: "white",
    };
    $("level").value = String(game.level);
    $("book").checked = game.book;
    $("color").value = game.colorChoice;

    boardEl.addEventListener("pointerdown", onPointerDown);
    document.addEventListener("pointermove", onPointerMove);
    document.addEventListener("pointerup", onPointerUp);
    document.addEventListener("pointercancel", () => { endDrag(); render(); });
    boardEl.addEventListener("contextmenu", (event) => event.preventDefault());

    $("new-game").addEventListener("click", newGame);
    $("takeback").addEventListener("click", takeback);
    $("flip").addEventListener("click", () => {
      game.flipped = !game.flipped;
      save();
      render();
    });
    $("hint").addEventListener("click", askHint);
    $("level").addEventListener("change", settingsChanged);
    $("book").addEventListener("change", settingsChanged);
    $("color").addEventListener("change", settingsChanged);
    $("fen-form").addEventListener("submit", setUpFen);
    $("copy-fen").addEventListener("click", copyFen);
    $("download-pgn").addEventListener("click", downloadPgn);
    $("promotion").querySelectorAll("button[data-promotion]").forEach((button) => {
      button.addEventListener("click", () => choosePromotion(button.dataset.promotion));
    });
    $("promotion-cancel").addEventListener("click", () => { closePromotion(); render(); });
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      if (promotion) closePromotion();
      selected = null;
      render();
    });

    render();
    loadPosition(true).then(() => {
      if (game.moves.length > 0 && position && !loading) showMessage("Your game was restored.");
    });
  }

  init();
})();
