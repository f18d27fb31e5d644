from tests.fakes.fixtures import llm, llm_config, llm_server, llm_server_session  # noqa: F401
