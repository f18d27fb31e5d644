"""Synthetic CRMArena orgs and tasks, for tests and the offline demo."""

from .org import generate_org
from .tasks import generate_tasks

__all__ = ["generate_org", "generate_tasks"]
