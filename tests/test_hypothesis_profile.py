"""The suite's hypothesis profile (tests/conftest.py) is in force for property tests."""

from hypothesis import HealthCheck, settings


def test_property_tests_have_no_deadline_and_no_too_slow_check() -> None:
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
