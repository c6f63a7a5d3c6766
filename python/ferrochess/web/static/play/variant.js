// A game's variant as every request carries it: standard chess, or Chess960 from a start the
// server set up (api/chess960). In Chess960 a castling move is the king taking its own rook
// (e1h1), as python-chess and chessground both have it; the server reads the game so only when
// the request says `chess960: true`.

/** A game's start as a request carries it: `{fen}`, with `chess960: true` in a game of Chess960. */
export const startOf = ({ fen, chess960 = false }) => (chess960 === true ? { fen, chess960: true } : { fen });
