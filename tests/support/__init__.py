"""What the tests share beside fixtures: slow, obviously correct oracles that the library's
fast paths are compared with, seeded input generators and checks used by several suites.

Nothing here is library code: ``kcca`` and ``features`` never import it.

* :mod:`tests.support.caption_oracles`: CIDEr, CIDEr-D and the LCS of ROUGE-L by direct loops;
* :mod:`tests.support.image_oracles`: histogram intersection and nearest visual word by NumPy
  and scikit-learn;
* :mod:`tests.support.stress`: seeded caption-like strings for the tokeniser parity tests;
* :mod:`tests.support.kernels`: every registered and plug-in kernel, loaded;
* :mod:`tests.support.fix_lines`: the options a ``fix:`` line names that its command lacks.
"""
