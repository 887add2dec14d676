"""The rest of the paper's printed numbers: Tables 3, 4 and 6 as printed, the significance
superscripts of Tables 1-6, and the Table 10(b) values quoted in the text.

Complements :mod:`kcca._paper.numbers` (Tables 1, 2, 5, 7-12 and the counts of
Section 4.3.2), typed in from the paper's text. Tables 3 and 4 repeat rows of Tables 11 and 12
and every Table 6 cell is a Table 12 R-precision value; tests check that the copies agree.

Superscripts, as printed: in Tables 1-5 the difference to TRI5SEM (``*`` p <= 0.1, ``**``
p <= 0.05, ``***`` p <= 0.01); in Table 6 the feature whose addition made a significant
difference (``i`` IDF, ``a`` alignment, ``d`` distributional; one letter p <= 0.1, two
p <= 0.05, three p <= 0.01). ``""`` means printed without a superscript, ``None`` that the
cell (or its superscript) is missing from the text.

Known problems of the printed text (docs/paper-notes.md#errata-in-the-printed-text):

* Table 6's last column (+Align&IDF) lost its search cells in the text: only TRI5SEM's 13.4 is
  printed. The values are taken from Table 12 (the same systems); their superscripts are
  unknown (``None``).
* Section 4.3.4 swaps annotation and search: "TRI5SEM (13.7 search; 13.4 annotation)" and
  "TRI5 with IDF-reweighting (12.5 search; 11.3 annotation)"; Tables 6 and 12 give
  annotation 13.7 / 12.5 and search 13.4 / 11.3.
* Section 4.2.2 contradicts Table 2: the text says BLEU finds a significant difference to
  TAGRANK but not to BoW5, while Table 2 marks both (``*`` for BoW5, ``**`` for TAGRANK).
* Table 10(b)'s cells are not in the text; Section 4.3.2 quotes three of them (below).
"""

from __future__ import annotations

from kcca._paper.numbers import TABLE12

#: the Section 4 systems of Tables 1-5, in the paper's row order (``Random`` only in 1-2)
TABLE1_SYSTEMS = ("Random", "NN", "BoW1", "BoW5", "TAGRANK", "TRI5SEM")
TABLE3_SYSTEMS = ("NN", "BoW1", "BoW5", "TAGRANK", "TRI5", "TRI5SEM")
REFERENCE = "TRI5SEM"  # every superscript of Tables 1-5 is a difference to this system

# Table 1 superscripts: columns =4.0 >=3.66 >=3.33 >=3.0 >=2.66 >=2.33 >=2.0 (McNemar)
TABLE1_MARKERS = {
    "Random": ("***",) * 7,
    "NN": ("***",) * 7,
    "BoW1": ("***", "***", "***", "***", "**", "***", "**"),
    "BoW5": ("", "", "*", "***", "***", "***", "***"),
    "TAGRANK": ("", "", "", "", "*", "**", "***"),
    "TRI5SEM": ("",) * 7,
}
# Table 2 superscripts: expert, BLEU, ROUGE (Fisher's randomisation test)
TABLE2_MARKERS = {
    "Random": ("***", "***", "***"),
    "NN": ("***", "***", "***"),
    "BoW1": ("***", "***", "***"),
    "BoW5": ("***", "*", "***"),
    "TAGRANK": ("***", "**", "***"),
    "TRI5SEM": ("", "", ""),
}

# Table 3 as printed: annotation R@1 R@5 R@10 median | search R@1 R@5 R@10 median, with
# superscripts (McNemar for R@k, randomisation for the median rank; caption: ** and *** only)
_TABLE3 = """
NN      2.5*** 7.6*** 9.7*** 251.0*** 2.5*** 4.7*** 7.2*** 272.0***
BoW1    4.8*** 13.5*** 19.7*** 64.0*** 4.5*** 14.3*** 20.8*** 67.0***
BoW5    6.2** 17.1*** 24.3*** 58.0*** 5.8** 16.7*** 23.6*** 60.0***
TAGRANK 6.0*** 17.0*** 23.8*** 56.0*** 5.4*** 17.4*** 24.3*** 52.5***
TRI5    7.1 17.2*** 23.7*** 53.0*** 6.0*** 17.8*** 26.2*** 55.0***
TRI5SEM 8.3 21.6 30.3 34.0 7.6 20.7 30.1 38.0
"""
# Table 4 as printed: annotation S@1 S@5 S@10 | search S@1 S@5 S@10 (McNemar)
_TABLE4 = """
NN      5.8*** 15.4*** 20.2*** 5.0*** 13.3*** 18.4***
BoW1    12.2*** 30.3*** 39.7*** 11.4*** 30.5*** 40.2***
BoW5    15.0 34.1** 42.7*** 12.1*** 31.5*** 40.8***
TAGRANK 16.2 34.2** 42.9*** 12.4*** 31.5*** 41.6***
TRI5    16.4 32.9*** 43.4*** 13.1** 33.1** 43.8***
TRI5SEM 16.6 37.7 49.1 15.7 36.9 48.5
"""
# Table 5 superscripts: annotation, search (randomisation); the Total column has none
TABLE5_MARKERS = {s: ("***", "***", "") for s in TABLE3_SYSTEMS if s != "TRI5SEM"}
TABLE5_MARKERS["TRI5SEM"] = ("", "", "")


def _parse_printed(block: str, cols: tuple[str, ...]) -> dict:
    out = {}
    for line in block.strip().splitlines():
        name, *cells = line.split()
        assert len(cells) == 2 * len(cols), line
        values = [float(c.rstrip("*")) for c in cells]
        marks = [c[len(c.rstrip("*")) :] for c in cells]
        out[name] = {
            task: {m: (values[i + off], marks[i + off]) for i, m in enumerate(cols)}
            for task, off in (("annotation", 0), ("search", len(cols)))
        }
    return out


TABLE3 = _parse_printed(_TABLE3, ("R@1", "R@5", "R@10", "median rank"))
"""short name -> task -> metric -> (value, superscript), as printed in Table 3."""
TABLE4 = _parse_printed(_TABLE4, ("S@1", "S@5", "S@10"))
"""short name -> task -> metric -> (value, superscript), as printed in Table 4."""

# Table 6: R-precision of the trigram ablation, rows x columns of the printed grid.
TABLE6_ROWS = ("TRI5", "+D(BNC)", "+D(ic)", "+D(BNC+ic)")
TABLE6_COLUMNS = ("TRI5", "+IDF", "+Align", "+Align&IDF")
TABLE6_SYSTEMS = (
    ("TRI5", "TRI5^sqrtidf", "TRI5_A", "TRI5^sqrtidf_A"),
    ("TRI5_D(BNC)", "TRI5^sqrtidf_D(BNC)", "TRI5_A,D(BNC)", "TRI5^sqrtidf_A,D(BNC)"),
    ("TRI5_D(ic)", "TRI5^sqrtidf_D(ic)", "TRI5_A,D(ic)", "TRI5^sqrtidf_A,D(ic)"),
    ("TRI5_D(BNC+ic)", "TRI5^sqrtidf_D(BNC+ic)", "TRI5_A,D(BNC+ic)", "TRI5^sqrtidf_A,D(BNC+ic)"),
)
# Table 6 as printed: one line per row of TABLE6_ROWS, one cell per column of TABLE6_COLUMNS
# ("annotation search", each value with its superscript); "?" is what the text does not give
_TABLE6 = """
11.6 11.0      | 12.5ii 11.3   | 13.4aaa 12.3aa | 13.4a ?
12.7dd 12.1dd  | 12.9 12.2ddd  | 13.2 12.8a     | 12.9 ?
12.7dd 12.8ddd | 12.8 13.1ddd  | 13.0 12.8      | 13.3 ?
12.5dd 12.7ddd | 13.3d 13.0ddd | 13.4aa 13.2dd  | 13.7 13.4?
"""


def _printed_value(token: str) -> tuple[float | None, str | None]:
    if token == "?":
        return None, None
    if token.endswith("?"):
        return float(token[:-1]), None
    number = token.rstrip("adi")
    return float(number), token[len(number) :]


def _parse_table6(block: str) -> tuple:
    return tuple(
        tuple(
            (*_printed_value(annotation), *_printed_value(search))
            for annotation, search in (cell.split() for cell in line.split("|"))
        )
        for line in block.strip().splitlines()
    )


#: (annotation, superscript, search, superscript) per cell of the printed grid
TABLE6_PRINTED = _parse_table6(_TABLE6)


def table6_paper(row: int, col: int, task: str) -> tuple[float | None, str | None]:
    """(value, superscript) of a Table 6 cell; a value missing from the text comes from
    Table 12 (same system), its superscript is then None."""
    ann, ann_m, srch, srch_m = TABLE6_PRINTED[row][col]
    value, mark = (ann, ann_m) if task == "annotation" else (srch, srch_m)
    if value is None:
        value = TABLE12[TABLE6_SYSTEMS[row][col]][task]["R-precision"]
    return value, mark


def table6_comparisons(row: int, col: int) -> list[tuple[str, int, int]]:
    """The (letter, row, col) cells a Table 6 cell is tested against (Section 4.3.4).

    ``d``: rows 2-4 against the top cell of the same column; ``i``: +IDF against TRI5 and
    +Align&IDF against +Align (same row); ``a``: +Align against TRI5 and +Align&IDF against
    +IDF (same row).
    """
    out = []
    if row > 0:
        out.append(("d", 0, col))
    if col == 1:
        out.append(("i", row, 0))
    elif col == 2:
        out.append(("a", row, 0))
    elif col == 3:
        out += [("i", row, 2), ("a", row, 1)]
    return out


# Table 10(b) cells quoted in Section 4.3.2 (crowd >= 0.66 against expert thresholds; fractions)
TABLE10B_QUOTED = {
    ("=4.0", "recall"): 0.986,
    (">=3.6", "recall"): 0.950,
    (">=2.6", "precision"): 0.947,
}  # precision: "at least 94.7%"
