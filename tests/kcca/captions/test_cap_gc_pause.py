"""The cyclic collector is paused around the caption metrics' work, and set back after."""

import gc
import os
import subprocess
import sys
import threading
import time

import pytest

from kcca.captions.gc_pause import paused_gc


@pytest.fixture
def collector_on():
    """The collector on and no pause running (an earlier test's METEOR may still be loading
    in a background thread of this process: wait for it)."""
    from kcca.captions import gc_pause

    for _ in range(600):
        if gc_pause._depth == 0:
            break
        time.sleep(0.1)
    assert gc_pause._depth == 0, "a pause of another thread did not end in a minute"
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def _printed_by_fresh_python(code: str) -> str:
    """What ``code`` prints in a new interpreter (no thread of other tests there)."""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return out.stdout.strip()


def test_nested_blocks_in_two_threads_set_the_collector_back_after_the_last(collector_on):
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with paused_gc():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second():
        first_in.wait(5)
        with paused_gc():
            with paused_gc():
                second_in.set()
                first_out.wait(5)
                seen["after the first ended"] = gc.isenabled()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == {"after the first ended": False}
    assert gc.isenabled()


def test_a_collector_switched_off_by_the_caller_stays_off(collector_on):
    gc.disable()
    with paused_gc():
        pass
    assert not gc.isenabled()
    gc.enable()


def test_an_exception_sets_the_collector_back(collector_on):
    with pytest.raises(ZeroDivisionError):
        with paused_gc():
            1 / 0
    assert gc.isenabled()


def test_many_new_containers_are_collected_once_when_the_pause_ends(collector_on):
    from kcca.captions import gc_pause

    with paused_gc():
        kept = [[k] for k in range(gc_pause.COLLECT_AFTER + 10_000)]
        assert gc.get_count()[0] > gc_pause.COLLECT_AFTER
    assert gc.get_count()[0] < 1_000
    del kept


def test_the_young_are_scanned_once_when_the_pause_ends():
    """In a fresh interpreter (no other thread to start collections meanwhile)."""
    code = (
        "import gc\n"
        "from kcca.captions.gc_pause import COLLECT_AFTER, paused_gc\n"
        "runs = []\n"
        "def note(phase, info):\n"
        "    if phase == 'start':\n"
        "        runs.append(info['generation'])\n"
        "with paused_gc():\n"
        "    kept = [[k] for k in range(COLLECT_AFTER + 10_000)]\n"
        "    gc.callbacks.append(note)\n"
        "gc.callbacks.remove(note)\n"
        "print(runs)\n"
    )
    assert _printed_by_fresh_python(code) == "[1]"  # no automatic generation-0 collection first


def test_a_finaliser_that_pauses_again_while_the_young_are_collected_does_not_hang():
    """The collection at the end of the last block runs outside the lock: a ``__del__`` that
    tokenises (a new block) must not wait for it."""
    code = (
        "import gc\n"
        "from kcca.captions.gc_pause import COLLECT_AFTER, paused_gc\n"
        "from kcca.captions.tokenizer import tokenize_batch\n"
        "seen = []\n"
        "class Holder:\n"
        "    def __init__(self): self.me = self\n"
        "    def __del__(self): seen.append(tokenize_batch(['A dog.']))\n"
        "with paused_gc():\n"
        "    Holder()\n"
        "    junk = [[i] for i in range(COLLECT_AFTER + 1000)]\n"
        "gc.collect()\n"
        "print(seen, gc.isenabled())\n"
    )
    assert _printed_by_fresh_python(code) == "[[['a', 'dog']]] True"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_child_forked_during_a_pause_has_the_collector_back(collector_on):
    with paused_gc():
        pid = os.fork()
        if pid == 0:  # the child: enabled, and the block's end changes nothing
            ok = gc.isenabled()
            # (the block ends below, in the child too)
        else:
            ok = not gc.isenabled()
    if pid == 0:
        os._exit(0 if ok and gc.isenabled() else 1)
    _, status = os.waitpid(pid, 0)
    assert ok and os.waitstatus_to_exitcode(status) == 0
    assert gc.isenabled()


def test_tokenising_and_scoring_run_without_the_collector(collector_on, monkeypatch):
    import kcca.captions.tokenizer as tok
    from kcca.captions import Bleu, evaluate_captions
    from kcca.coco.bleu.bleu import Bleu as CocoBleu
    from kcca.coco.tokenizer.ptbtokenizer import PTBTokenizer

    states = []
    lex = tok._lex_lines
    monkeypatch.setattr(tok, "_lex_lines", lambda *a: states.append(gc.isenabled()) or lex(*a))
    score = Bleu.score_tokens
    monkeypatch.setattr(
        Bleu, "score_tokens", lambda self, *a: states.append(gc.isenabled()) or score(self, *a)
    )
    captions = {1: ["A dog runs.", "A brown dog."], 2: ["Two cats sit.", "Cats."]}
    tokens = PTBTokenizer().tokenize(captions)
    CocoBleu(2).compute_score(tokens, {1: ["a dog"], 2: ["two cats"]}, verbose=0)
    Bleu(2).compute_score(tokens, {1: "a dog", 2: "two cats"})
    evaluate_captions(captions, {1: "A dog.", 2: "Two cats."}, ("bleu",))
    assert len(states) >= 6 and not any(states)
    assert gc.isenabled()


def test_bleu_and_cider_need_no_sparse_matrix_library():
    """SciPy's sparse module takes 0.1-0.2 s to import, more than BLEU takes on 5,000 items."""
    code = (
        "import sys\n"
        "from kcca.coco.bleu.bleu import Bleu\n"
        "from kcca.coco.cider.cider import Cider\n"
        "from kcca.captions import Cider as PlainCider\n"
        "gts = {1: ['a dog runs', 'a brown dog'], 2: ['two cats sit', 'cats']}\n"
        "res = {1: ['a dog runs'], 2: ['two cats']}\n"
        "Bleu(4).compute_score(gts, res, verbose=0)\n"
        "Cider().compute_score(gts, res)\n"
        "PlainCider().compute_score(gts, {1: 'a dog runs', 2: 'two cats'})\n"
        "print('scipy.sparse' in sys.modules)\n"
    )
    assert _printed_by_fresh_python(code) == "False"
