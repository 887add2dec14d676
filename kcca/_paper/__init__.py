"""Everything specific to Hodosh, Young & Hockenmaier (2013): the paper's printed numbers and
the reports that set ours beside them.

* :mod:`.numbers`: the paper's Tables 2-12 as printed (values; Section 4 system names);
* :mod:`.printed`: Tables 3, 4 and 6 as printed and every table's significance superscripts;
* :mod:`.agreement`: the judgment-only tables (7-10, the BLEU_pre filter, relevance counts);
* :mod:`.judgment_tables`: their text layout (``kcca evaluate --paper-tables``);
* :mod:`.tables`: Tables 1-12, ours beside the paper's, with significance markers;
* :mod:`.fidelity`: every reproduction target checked (``fidelity.md``);
* :mod:`.plots`: R@k curves, gold-rank distributions, the Table 6 heat map;
* :mod:`.report`: a rankings folder in, tables, plots and fidelity out (``kcca reproduce``),
  over :mod:`.evaluated_systems` (each system's results read and evaluated),
  :mod:`.random_baseline`, :mod:`.table_building`, :mod:`.figures` and :mod:`.runs_header`.
"""
