"""Synthetic CRMArena orgs and tasks, for tests and the offline demo."""

from .generate import generate_org, generate_tasks

__all__ = ["generate_org", "generate_tasks"]
