"""Shared test configuration: a deterministic hypothesis profile and common fixtures."""

import os

import matplotlib
import numpy as np
import pytest
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

settings.register_profile(
    "deterministic",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", deadline=None, max_examples=2000, database=None)
settings.load_profile(os.environ.get("WPART_HYPOTHESIS_PROFILE", "deterministic"))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
