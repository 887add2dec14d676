"""What the tests share beside fixtures: slow, obviously correct oracles that the library's
fast paths are compared with, seeded input generators, fake data folders and checks used by
several suites. Fixtures stay in ``conftest.py``; no test module imports another
(``tests/test_test_layout.py``).

Nothing here is library code: ``kcca`` and ``features`` never import it.

* :mod:`tests.support.caption_oracles`: CIDEr, CIDEr-D and the LCS of ROUGE-L by direct loops;
* :mod:`tests.support.image_oracles`: histogram intersection and nearest visual word by NumPy
  and scikit-learn;
* :mod:`tests.support.soft_trigram_literal`: TRI with a word kernel (eq. 19-21) by literal
  sums over sequence pairs;
* :mod:`tests.support.rbf_kernel`: the Gaussian kernel of the solver tests;
* :mod:`tests.support.stress`: seeded caption-like strings for the tokeniser parity tests;
* :mod:`tests.support.java_ptb`: the Java PTB tokeniser as pycocoevalcap 1.2 runs it;
* :mod:`tests.support.kernels`: every registered and plug-in kernel, loaded;
* :mod:`tests.support.plugin_packages`: a fake installed distribution declaring plug-ins;
* :mod:`tests.support.fake_flickr8k`: a tiny Flickr 8K-shaped folder;
* :mod:`tests.support.fake_images`: photo-like pictures, their JPEG bytes, and the tiny folder
  with images;
* :mod:`tests.support.flickr_like`: the demo corpus as a Flickr 8K folder, with the experiment
  file and settings of small ``kcca reproduce`` runs;
* :mod:`tests.support.demo_systems`: rankings files of made-up systems on the demo corpus;
* :mod:`tests.support.report_runs`: a tiny run folder for the report tests;
* :mod:`tests.support.image_checks`: checks shared by the image descriptor tests;
* :mod:`tests.support.named_errors`: the one ``error:`` and ``fix:`` line of a named error;
* :mod:`tests.support.fix_lines`: the options a ``fix:`` line names that its command lacks;
* :mod:`tests.support.script_loader`: a file of ``scripts/`` loaded as a module.
* :mod:`tests.support.optional_tools`: optional tools (Java, pycocoevalcap, a browser, Dask):
  skipped locally, required in CI.
"""
