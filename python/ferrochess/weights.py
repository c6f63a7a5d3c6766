"""The hand-crafted evaluation's numbers, editable from Python: :class:`ClassicWeights`.

The classical evaluation (``Engine(evaluation="classic")``) adds up, for each side, a value per
piece (``material``), a bonus per piece and square (``tables``, the piece-square tables of the
python-chess tutorials), positional terms (doubled pawns, passed pawns by rank, mobility, king
safety, ...) and a bonus for the side to move (``tempo``). Every value is a :class:`Tapered` pair,
(middlegame, endgame) in centipawns, blended by how much material is left (all pieces on the
board: the middlegame value; kings and pawns only: the endgame value).

Change them, play them at the speed of the Rust search, tune them, save them::

    import chess, ferrochess
    from ferrochess import ClassicWeights, Tapered

    weights = ClassicWeights.default()
    weights.material["knight"] = Tapered(300, 300)
    weights.tables["knight"][chess.E4] = Tapered(40, 20)
    weights.passed_pawn[6] = Tapered(50, 150)          # a passed pawn on its 7th rank
    weights.save("my-weights.json")
    with ferrochess.Engine(evaluation=weights) as engine:
        ...

Tables are indexed by python-chess's square numbers, ``chess.A1`` (0) to ``chess.H8`` (63), from
White's side: a White knight on e4 reads ``tables["knight"][chess.E4]``, a Black knight on e5
reads the same entry (Black's board is White's mirrored vertically). Pieces are named as
``chess.piece_name`` names them: ``"pawn"``, ``"knight"``, ``"bishop"``, ``"rook"``, ``"queen"``,
``"king"``.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import numbers
import operator
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple, Union

import chess

from ferrochess import _core
from ferrochess.exceptions import FileError, InvalidWeightsError

__all__ = [
    "MAX_WEIGHT",
    "MOBILE_PIECES",
    "PIECES",
    "TERMS",
    "ClassicWeights",
    "Tapered",
]

PIECES: tuple[str, ...] = tuple(chess.piece_name(piece) for piece in chess.PIECE_TYPES)
"""The piece names in python-chess's order: ``("pawn", "knight", ..., "king")``."""

MOBILE_PIECES: tuple[str, ...] = ("knight", "bishop", "rook", "queen")
"""The pieces the per-piece terms (``mobility``, ``king_zone_attack``) count."""

MAX_WEIGHT: int = _core.CLASSIC_MAX_WEIGHT
"""The largest magnitude of any value, in centipawns (10000)."""

TERMS: tuple[str, ...] = tuple(name for name, _length, _group in _core.CLASSIC_TERMS)
"""The positional terms' names, in the engine's order: each is an attribute of
:class:`ClassicWeights` and a key of ``ferrochess.evaluate(..., terms=True)["terms"]``."""

_FORMAT = "ferrochess-classic-weights"
_VERSION = 1

PathLike = Union[str, "os.PathLike[str]"]


class Tapered(NamedTuple):
    """A (middlegame, endgame) pair of centipawns; a plain 2-tuple is accepted wherever one is."""

    middlegame: int
    endgame: int


#: How many values each term holds: 1 (a Tapered), 8 (a list by rank, index 0 = the 1st rank
#: from the pawn's side), or 4 (a dict by piece, :data:`MOBILE_PIECES`).
_TERM_LENGTHS: dict[str, int] = {name: length for name, length, _group in _core.CLASSIC_TERMS}


@functools.lru_cache(maxsize=1)
def _default_core() -> _core.ClassicWeights:
    return _core.ClassicWeights.default()


@functools.lru_cache(maxsize=1)
def _default_weights() -> ClassicWeights:
    return ClassicWeights._from_core(_default_core())


def _default(name: str) -> Any:
    """The default value of field ``name``, as a fresh object."""
    return copy.deepcopy(getattr(_default_weights(), name))


def _default_field(name: str) -> Any:
    return field(default_factory=lambda: _default(name))


@dataclass(eq=False, repr=False)
class ClassicWeights:
    """Every number of the classical evaluation, in centipawns from the piece owner's side.

    ``ClassicWeights()`` (or :meth:`default`) holds the values the engine plays with: PeSTO's
    material and tables and the positional weights tuned for ferrochess; pass any field to change
    it (``ClassicWeights(bishop_pair=Tapered(50, 80))``), or set it afterwards. Every value is a
    :class:`Tapered` (middlegame, endgame):

    - ``material``: per piece name (``"pawn"`` .. ``"king"``; the king's cancels out).
    - ``tables``: per piece name, 64 squares, ``chess.A1`` .. ``chess.H8`` from White's side.
    - the positional terms, one attribute each (:data:`TERMS`): a Tapered per feature counted
      (``doubled_pawn``: per pawn beyond the first on a file), except ``passed_pawn`` (a list of 8,
      by the pawn's rank from its side, index 0 = rank 1; the first and last are never used) and
      ``mobility`` and ``king_zone_attack`` (a dict by :data:`MOBILE_PIECES`; mobility counts the
      squares a piece attacks that hold no piece of its side and no enemy pawn attacks).
      ``passed_pawn_own_king`` and ``passed_pawn_their_king`` count the king's distance to the
      square in front of a passed pawn, times the pawn's rank (from its side) less 3, at least 0
      (1 on the 4th rank, 4 on the 7th).
    - ``tempo``: a plain int, the bonus of the side to move.

    Weights compare equal when every value is; :meth:`save`/:meth:`load` (JSON) keep them
    exactly. Anything malformed (a missing piece, a table of 63 squares, a value that is not a
    whole number or lies beyond :data:`MAX_WEIGHT`) raises InvalidWeightsError naming the field
    when the weights are used, compared or saved.
    """

    material: dict[str, Tapered] = _default_field("material")
    tables: dict[str, list[Tapered]] = _default_field("tables")
    doubled_pawn: Tapered = _default_field("doubled_pawn")
    isolated_pawn: Tapered = _default_field("isolated_pawn")
    backward_pawn: Tapered = _default_field("backward_pawn")
    supported_pawn: Tapered = _default_field("supported_pawn")
    phalanx_pawn: Tapered = _default_field("phalanx_pawn")
    passed_pawn: list[Tapered] = _default_field("passed_pawn")
    passed_pawn_blocked: Tapered = _default_field("passed_pawn_blocked")
    passed_pawn_own_king: Tapered = _default_field("passed_pawn_own_king")
    passed_pawn_their_king: Tapered = _default_field("passed_pawn_their_king")
    mobility: dict[str, Tapered] = _default_field("mobility")
    king_zone_attack: dict[str, Tapered] = _default_field("king_zone_attack")
    king_shelter_pawn: Tapered = _default_field("king_shelter_pawn")
    king_open_file: Tapered = _default_field("king_open_file")
    bishop_pair: Tapered = _default_field("bishop_pair")
    rook_open_file: Tapered = _default_field("rook_open_file")
    rook_semi_open_file: Tapered = _default_field("rook_semi_open_file")
    threat_by_pawn: Tapered = _default_field("threat_by_pawn")
    knight_outpost: Tapered = _default_field("knight_outpost")
    tempo: int = _default_field("tempo")

    @classmethod
    def default(cls) -> ClassicWeights:
        """The weights the engine plays with (a fresh copy, free to change)."""
        return _default_weights().copy()

    def copy(self) -> ClassicWeights:
        """A deep copy: changing it leaves these weights as they are."""
        return copy.deepcopy(self)

    @property
    def name(self) -> str:
        """``"classic"`` for the default weights, else ``"classic-"`` and 12 hex digits of a hash
        of every value: what :attr:`ferrochess.Engine.evaluation` reads with these weights."""
        return self._to_core().name

    # -- conversions ----------------------------------------------------------------------

    @classmethod
    def _from_core(cls, core: _core.ClassicWeights) -> ClassicWeights:
        values: dict[str, Any] = {
            "material": {piece: Tapered(*pair) for piece, pair in zip(PIECES, core.material)},
            "tables": {
                piece: [Tapered(*pair) for pair in table]
                for piece, table in zip(PIECES, core.tables)
            },
            "tempo": core.tempo,
        }
        terms = iter(core.terms)
        for name, length in _TERM_LENGTHS.items():
            run = [Tapered(*next(terms)) for _ in range(length)]
            values[name] = _shape(run)
        return cls(**values)

    def _to_core(self) -> _core.ClassicWeights:
        """The frozen core object the engine reads; raises InvalidWeightsError naming a bad
        field."""
        material, tables, terms, tempo = self._canonical()
        return _core.ClassicWeights(material, tables, terms, tempo)

    def _canonical(
        self,
    ) -> tuple[list[tuple[int, int]], list[list[tuple[int, int]]], list[tuple[int, int]], int]:
        """Every value checked, flattened in the engine's order."""
        material = _pieces("material", self.material, PIECES)
        tables = [
            _run(f"tables[{piece!r}]", table, 64, square_names=True)
            for piece, table in _pieces_raw("tables", self.tables, PIECES).items()
        ]
        terms: list[tuple[int, int]] = []
        for name, length in _TERM_LENGTHS.items():
            terms.extend(_term(name, getattr(self, name), length))
        return material, tables, terms, _whole("tempo", self.tempo)

    # -- comparison and display -----------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClassicWeights):
            return NotImplemented
        try:
            return self._canonical() == other._canonical()
        except InvalidWeightsError:
            return all(
                getattr(self, item.name) == getattr(other, item.name) for item in fields(self)
            )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        def pair(value: Any) -> str:
            return f"({value[0]}, {value[1]})" if _is_pair(value) else repr(value)

        def show(value: Any) -> str:
            if isinstance(value, Mapping):
                return "{" + ", ".join(f"{k!r}: {pair(v)}" for k, v in value.items()) + "}"
            if isinstance(value, Sequence) and not _is_pair(value):
                return "[" + ", ".join(pair(v) for v in value) + "]"
            return pair(value)

        try:
            name = self.name
        except InvalidWeightsError as error:
            name = f"invalid: {error}"
        lines = [f"ClassicWeights(  # {name}"]
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name == "tables":
                shown = "<" + ", ".join(value) + ": 64 squares each, a1..h8>"
            else:
                shown = show(value)
            lines.append(f"    {item.name}={shown},")
        lines.append(")")
        return "\n".join(lines)

    # -- JSON -----------------------------------------------------------------------------

    def to_json(self) -> str:
        """The weights as JSON text: an object with ``format``, ``version`` and one key per field
        (pairs as ``[middlegame, endgame]``; tables a1..h8, eight squares a line). Raises
        InvalidWeightsError naming a bad field."""
        self._canonical()

        def dump(value: Any) -> str:
            return json.dumps(value, separators=(", ", ": "))

        def pairs(values: Sequence[Any]) -> list[list[int]]:
            return [[int(v[0]), int(v[1])] for v in values]

        parts = [f'  "format": {dump(_FORMAT)}', f'  "version": {_VERSION}']
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name == "tables":
                tables = []
                for piece, table in value.items():
                    rows = [dump(pairs(table[rank * 8 : rank * 8 + 8]))[1:-1] for rank in range(8)]
                    body = ",\n".join(f"      {row}" for row in rows)
                    tables.append(f'    "{piece}": [\n{body}\n    ]')
                parts.append('  "tables": {\n' + ",\n".join(tables) + "\n  }")
            elif item.name == "tempo":
                parts.append(f'  "tempo": {int(value)}')
            elif isinstance(value, Mapping):
                body = ", ".join(f"{dump(k)}: {dump(pairs([v])[0])}" for k, v in value.items())
                parts.append(f'  "{item.name}": {{{body}}}')
            elif _is_pair(value):
                parts.append(f'  "{item.name}": {dump(pairs([value])[0])}')
            else:
                parts.append(f'  "{item.name}": {dump(pairs(value))}')
        return "{\n" + ",\n".join(parts) + "\n}\n"

    @classmethod
    def from_json(cls, text: str | bytes) -> ClassicWeights:
        """The weights :meth:`to_json` wrote. Every field is required (``format`` and ``version``
        are optional); raises InvalidWeightsError naming a missing, unknown or malformed field."""
        try:
            data = json.loads(text)
        except (ValueError, UnicodeDecodeError) as error:
            raise InvalidWeightsError(f"not JSON weights: {error}") from None
        if not isinstance(data, dict):
            raise InvalidWeightsError(
                f"not JSON weights: an object was expected, got {type(data).__name__}"
            )
        if data.get("format", _FORMAT) != _FORMAT:
            raise InvalidWeightsError(f"format: {data['format']!r}, expected {_FORMAT!r}")
        if data.get("version", _VERSION) != _VERSION:
            raise InvalidWeightsError(f"version: {data['version']!r}, expected {_VERSION}")
        names = [item.name for item in fields(cls)]
        for key in data:
            if key not in names and key not in ("format", "version"):
                raise InvalidWeightsError(f"unknown field {key!r}")
        for name in names:
            if name not in data:
                raise InvalidWeightsError(f"missing field {name!r}")
        values: dict[str, Any] = {
            "material": {
                piece: Tapered(*pair)
                for piece, pair in zip(PIECES, _pieces("material", data["material"], PIECES))
            },
            "tables": {
                piece: [
                    Tapered(*pair)
                    for pair in _run(f"tables[{piece!r}]", table, 64, square_names=True)
                ]
                for piece, table in _pieces_raw("tables", data["tables"], PIECES).items()
            },
            "tempo": _whole("tempo", data["tempo"]),
        }
        for name, length in _TERM_LENGTHS.items():
            values[name] = _shape([Tapered(*p) for p in _term(name, data[name], length)])
        return cls(**values)

    def save(self, path: PathLike) -> None:
        """Writes :meth:`to_json` to ``path``; FileError names a path that cannot be written."""
        text = self.to_json()
        try:
            with open(path, "w", encoding="utf-8") as file:
                file.write(text)
        except OSError as error:
            raise FileError(f"cannot write '{os.fspath(path)}': {error.strerror}") from None

    @classmethod
    def load(cls, path: PathLike) -> ClassicWeights:
        """The weights saved at ``path``: FileError names a missing or unreadable file,
        InvalidWeightsError the file and its bad field."""
        try:
            with open(path, encoding="utf-8") as file:
                text = file.read()
        except OSError as error:
            raise FileError(f"cannot read '{os.fspath(path)}': {error.strerror}") from None
        except UnicodeDecodeError as error:
            raise InvalidWeightsError(f"'{os.fspath(path)}': not JSON weights: {error}") from None
        try:
            return cls.from_json(text)
        except InvalidWeightsError as error:
            raise InvalidWeightsError(f"'{os.fspath(path)}': {error}") from None


def _shape(run: list[Tapered]) -> Any:
    """A term's values as its attribute holds them: a Tapered, a list by rank, a dict by piece."""
    if len(run) == 1:
        return run[0]
    if len(run) == len(MOBILE_PIECES):
        return dict(zip(MOBILE_PIECES, run))
    return run


def _term(name: str, value: Any, length: int) -> list[tuple[int, int]]:
    """Term ``name``'s ``length`` values, checked."""
    if length == 1:
        return [_pair(name, value)]
    if length == len(MOBILE_PIECES):
        return _pieces(name, value, MOBILE_PIECES)
    return _run(name, value, length)


def _is_pair(value: Any) -> bool:
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str)
        and len(value) == 2
        and not any(isinstance(item, Sequence) for item in value)
    )


def _whole(where: str, value: Any) -> int:
    """``value`` as a whole number of centipawns within :data:`MAX_WEIGHT`."""
    # numbers.Integral and numbers.Real take NumPy's integers and floats as well.
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidWeightsError(f"{where}: {value!r} is not a number of centipawns")
    if isinstance(value, numbers.Integral):
        number = operator.index(value)
    elif math.isfinite(value) and float(value).is_integer():
        number = int(float(value))
    else:
        raise InvalidWeightsError(f"{where}: {value!r} is not a whole number of centipawns")
    if abs(number) > MAX_WEIGHT:
        raise InvalidWeightsError(
            f"{where}: {number} lies beyond -{MAX_WEIGHT}..{MAX_WEIGHT} centipawns"
        )
    return number


def _pair(where: str, value: Any) -> tuple[int, int]:
    """``value`` as a checked (middlegame, endgame) pair."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise InvalidWeightsError(f"{where}: expected (middlegame, endgame), got {value!r}")
    if len(value) != 2:
        raise InvalidWeightsError(
            f"{where}: expected (middlegame, endgame), got {len(value)} values"
        )
    return _whole(f"{where} middlegame", value[0]), _whole(f"{where} endgame", value[1])


def _run(
    where: str, value: Any, length: int, *, square_names: bool = False
) -> list[tuple[int, int]]:
    """``value`` as ``length`` checked pairs."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise InvalidWeightsError(f"{where}: expected a list of {length} pairs, got {value!r}")
    if len(value) != length:
        unit = "squares" if square_names else "values"
        raise InvalidWeightsError(f"{where}: {len(value)} {unit}, expected {length}")
    return [
        _pair(f"{where}[{chess.square_name(i) if square_names else i}]", item)
        for i, item in enumerate(value)
    ]


def _pieces_raw(where: str, value: Any, pieces: Sequence[str]) -> dict[str, Any]:
    """``value`` as a mapping with exactly the keys ``pieces``, in that order."""
    if not isinstance(value, Mapping):
        raise InvalidWeightsError(
            f"{where}: expected a dict by piece ({', '.join(pieces)}), got {value!r}"
        )
    for key in value:
        if key not in pieces:
            raise InvalidWeightsError(
                f"{where}: unknown piece {key!r} (expected {', '.join(pieces)})"
            )
    for piece in pieces:
        if piece not in value:
            raise InvalidWeightsError(f"{where}: missing {piece!r}")
    return {piece: value[piece] for piece in pieces}


def _pieces(where: str, value: Any, pieces: Sequence[str]) -> list[tuple[int, int]]:
    """``value`` as one checked pair per piece of ``pieces``, in that order."""
    return [
        _pair(f"{where}[{piece!r}]", item)
        for piece, item in _pieces_raw(where, value, pieces).items()
    ]
