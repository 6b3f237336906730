"""The analysis of results tables: one core for compare, claims, across rounds, followup, the
plots and the report, whichever door a question comes through (the command line's
checker/commands/, or the Python API, checker/api.py).

    reader.py     the one typed reader: a table file or a checked tree -> typed rows, each row
                  that breaks its column's declaration left out with a LeftOut (a warning)
    table.py      Row, and the one typed table (COLUMNS: a DataFrame of declared dtypes)
    selection.py  the one selection rule of every filter (model, scenario, submitter,
                  accelerator, round, division)
    compare.py    comparable groups: the definition, the members and groups frames, the words
    claims.py     claims judged on the selected rows
    across.py     the same hardware followed across rounds, and scaling
    followup.py   a Preview result followed to its Available successor
    plots.py      the drawings of compare, across rounds and the report

Nothing here prints, reads the command line or exits: a user error is a UsageError
(checker.settings), which the command line maps to exit 2 and the API to a ValueError.
"""

# compare's defaults, said once (the command line's options, the API's parameters, claims and
# the report read them here): within tolerance when the partners' mean |deviation| <= 4%, an
# outlier when |deviation| > 10%. Here, so that the command line reads them without pandas.
TOLERANCE = 0.04
OUTLIER = 0.10
