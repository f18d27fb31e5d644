from tests.fakes.fixtures import llm_server, llm_server_session  # noqa: F401
