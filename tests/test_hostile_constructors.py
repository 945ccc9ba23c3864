"""Hostile inputs to the public classes and writers that the standing fuzz
(tests/test_fuzz_hostile.py, which walks the public *functions*) does not call: each raises a
:class:`wpart.WpartError` naming the argument, never NumPy's or Python's own error."""

from __future__ import annotations

import numpy as np
import pytest

import wpart
import wpart.dynamic as D
import wpart.hetero as H
import wpart.multikernel as MK
import wpart.tasks as T

RAGGED = [[1, 2], [3]]


@pytest.mark.parametrize("make, word", [
    (lambda: D.Task(2**40), "`n`"),                       # 4 TiB of coverage counters
    (lambda: D.Static(RAGGED), "`blocks`"),
    (lambda: D.GemmColumnsTask(RAGGED, np.ones((2, 2))), "`A`"),
    (lambda: D.GemmColumnsTask(np.ones((2, 2)), RAGGED), "`B`"),
    (lambda: D.KMeansAssignTask(RAGGED, np.ones((2, 2))), "`points`"),
    (lambda: MK.KnowledgeBase(None), "`path`"),
    (lambda: MK.KnowledgeBase(3), "`path`"),
    (lambda: MK.Profile("saxpy", None, s=0.5), "`extents`"),
    (lambda: H.Profile([1, 2], [1.0, 2.0], [1.0, 2.0]), "`sizes`"),
    (lambda: H.ProfileSet(np.array(3.0)), "`profiles`"),
], ids=["Task_2^40", "Static_ragged", "Gemm_A_ragged", "Gemm_B_ragged", "KMeans_ragged",
        "KB_None", "KB_int", "KernelProfile_None", "hetero_Profile_list", "ProfileSet_0d"])
def test_constructor_refuses_with_a_wpart_error_naming_the_argument(make, word):
    with pytest.raises(wpart.WpartError, match=word):
        make()


def test_write_lbdatafile_refuses_a_non_problem_and_a_non_path(tmp_path):
    p = T.gemma_like(m=2, n_tasks=10, n_blocks=2, seed=0)
    for bad in (None, RAGGED):
        with pytest.raises(wpart.WpartTypeError, match="`problem`"):
            T.write_lbdatafile(bad, str(tmp_path / "x"))
    for bad in (None, 3):
        with pytest.raises(wpart.WpartTypeError, match="`stem`"):
            T.write_lbdatafile(p, bad)
    assert not list(tmp_path.iterdir())
    T.write_lbdatafile(p, tmp_path / "ok")  # an os.PathLike stem still works
    assert T.Problem.from_lbdatafile(str(tmp_path / "ok")).n_tasks == 10


def test_valid_constructions_still_work():
    assert D.Task(5).coverage.tolist() == [0] * 5
    assert D.Static([2, 3])._args[0].tolist() == [2, 3]
    assert D.GemmColumnsTask(np.ones((2, 3)), np.ones((3, 4))).n == 4
    assert MK.Profile("saxpy", 4096, s=0.5).extents == (4096,)
    prof = H.Profile(np.array([1, 2]), np.array([1.0, 2.0]), np.array([0.0, 0.0]))
    assert H.ProfileSet([prof]).m == 1


def test_a_profile_file_with_a_100000_digit_size_gives_a_short_overflow_error(tmp_path):
    f = tmp_path / "p.csv"
    f.write_text("processor,size,time\ncpu," + "9" * 100_000 + ",1\n")
    with pytest.raises(wpart.WpartOverflowError, match="p.csv") as ei:
        H.ProfileSet.from_csv(f)
    assert "100000 characters" in str(ei.value) and len(str(ei.value)) < 400
    g = tmp_path / "q.txt"
    g.write_text("²0 1\n")
    with pytest.raises(wpart.WpartValueError, match="not a number"):
        H.Profile.from_file(g)


def test_an_lbdatafile_string_of_100000_characters_is_not_echoed_whole(tmp_path):
    import json
    big = "x" * 100_000
    task = {"entity": {"type": "object", "id": 0, "home": 0, "migratable": True}, "node": 0,
            "resource": "cpu", "time": 1.0}
    for meta in ({"type": "LBDatafile", "rank": big}, {"type": big, "rank": 0}):
        stem = tmp_path / f"s{len(meta['type'])}"
        (tmp_path / f"{stem.name}.0.json").write_text(
            json.dumps({"metadata": meta, "phases": [{"id": 0, "tasks": [task]}]}))
        with pytest.raises(wpart.WpartError, match=f"{stem.name}.0.json") as ei:
            T.Problem.from_lbdatafile(str(stem))
        assert "100002 characters" in str(ei.value) and len(str(ei.value)) < 400


def test_simulate_names_its_platform_argument_for_an_unknown_preset():
    with pytest.raises(wpart.WpartValueError, match="`platform`.*'bogus'"):
        D.simulate("bogus", "plb_hac", seed=0)
