"""Mock domain: a tiny task tracker (agent tools) and a notification inbox (user tools).

Shapes mirror upstream's `mock/data_model.py` and `user_data_model.py`; the non-tool helpers
(`assert_*`, `add_notification`) serve `initialization_actions` and `env_assertions`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from a2abench.benchmarks.tau2.toolkit import ModelView, Toolkit, ToolType, tool

TaskStatus = Literal["pending", "completed"]


class Task(BaseModel):
    task_id: str
    title: str
    description: str | None = None
    status: TaskStatus


class User(BaseModel):
    user_id: str
    name: str
    tasks: list[str]


class MockDB(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tasks: dict[str, Task]
    users: dict[str, User]


class Notification(BaseModel):
    model_config = ConfigDict(extra="forbid")

    notification_id: str
    message: str
    status: Literal["unread", "read"] = "unread"
    task_id: str | None = None


class MockUserDB(BaseModel):
    model_config = ConfigDict(extra="forbid")

    notifications: dict[str, Notification] = Field(default_factory=dict)


class MockTools(Toolkit):
    """Upstream's `MockTools`."""

    @tool(ToolType.WRITE)
    def create_task(self, user_id: str, title: str,
                    # Upstream's exact annotation: the schema says "string" with a null default.
                    description: str = None,  # type: ignore[assignment]  # noqa: RUF013
                    ) -> Any:
        users = self.db.table("users")
        if user_id not in users:
            raise ValueError(f"User {user_id} not found")
        tasks = self.db.table("tasks")
        # Upstream numbers new tasks from the table size, not from existing ids.
        task_id = f"task_{len(tasks) + 1}"
        task = Task(task_id=task_id, title=title, description=description, status="pending")
        record = task.model_dump()
        tasks.put(task_id, record)
        users.mut(user_id)["tasks"].append(task_id)
        return ModelView(record)

    @tool(ToolType.READ)
    def get_users(self) -> Any:
        return [ModelView(user) for user in self.db.table("users").values()]

    @tool(ToolType.WRITE)
    def update_task_status(self, task_id: str, status: TaskStatus) -> Any:
        tasks = self.db.table("tasks")
        if task_id not in tasks:
            raise ValueError(f"Task {task_id} not found")
        task = tasks.mut(task_id)
        task["status"] = status  # upstream assigns without validating the status
        return ModelView(task)

    def assert_number_of_tasks(self, user_id: str, expected_number: int) -> bool:
        users = self.db.table("users")
        if user_id not in users:
            raise ValueError(f"User {user_id} not found")
        return len(users.get(user_id)["tasks"]) == expected_number

    def assert_task_status(self, task_id: str, expected_status: TaskStatus) -> bool:
        tasks = self.db.table("tasks")
        if task_id not in tasks:
            raise ValueError(f"Task {task_id} not found")
        return bool(tasks.get(task_id)["status"] == expected_status)

    @tool(ToolType.GENERIC)
    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"


class MockUserTools(Toolkit):
    """Upstream's `MockUserTools` (user side)."""

    @tool(ToolType.READ)
    def check_notifications(self) -> Any:
        return [ModelView(n) for n in self.db.table("notifications").values()]

    @tool(ToolType.WRITE)
    def dismiss_notification(self, notification_id: str) -> str:
        notifications = self.db.table("notifications")
        if notification_id not in notifications:
            raise ValueError(f"Notification {notification_id} not found")
        notifications.mut(notification_id)["status"] = "read"
        return f"Notification {notification_id} dismissed"

    def add_notification(self, notification_id: str, message: str,
                         task_id: str | None = None) -> Any:
        notification = Notification(notification_id=notification_id, message=message,
                                    task_id=task_id)
        record = notification.model_dump()
        self.db.table("notifications").put(notification_id, record)
        return ModelView(record)

    def assert_notification_status(self, notification_id: str, expected_status: str) -> bool:
        notifications = self.db.table("notifications")
        if notification_id not in notifications:
            raise ValueError(f"Notification {notification_id} not found")
        return bool(notifications.get(notification_id)["status"] == expected_status)
