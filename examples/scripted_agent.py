"""The deterministic scripted agent that `a2abench demo` uses, as a standalone server.

    python examples/scripted_agent.py --port 9998 &
    a2abench discover http://127.0.0.1:9998

It understands two task-tracker requests (tau2 wire format) and a few CRMArena questions
(real SOQL/SOSL); see a2abench/demo/agent.py. Useful to try the harness without a model.
"""

from __future__ import annotations

import argparse

from a2abench.demo.agent import build_app


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9998)
    parser.add_argument("--card-url", default=None, help="public URL the card advertises")
    args = parser.parse_args()
    base = args.card_url or f"http://{args.host}:{args.port}"
    uvicorn.run(build_app(base), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
