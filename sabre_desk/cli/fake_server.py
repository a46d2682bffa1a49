"""`sabre-desk fake-server KIND`: a stand-in model service on 127.0.0.1, so the commands
that call a model (generate, screen, predict, evaluate, a Gemini repair) can be tried
without a key, a bill or a network. It runs until Ctrl+C (or SIGTERM); its answers are
made up, never a model's."""

from __future__ import annotations

import argparse
import threading
from typing import Any

from sabre_desk.cli.common import EXIT_OK, EXIT_PROBLEMS, CliError
from sabre_desk.demo.fake_servers import KINDS


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "fake-server",
        help="a stand-in model service on 127.0.0.1, to try the model commands offline",
        description="Serve a stand-in for a model service on 127.0.0.1 until Ctrl+C: a "
        "local, deterministic server speaking the service's real wire format, so the official "
        "client talks to it unchanged. Its answers are made up, never a model's. Point the "
        "client at the address it prints (the variable it names); any API key will do. KIND: "
        + "; ".join(f"{kind}, {text}" for kind, text in KINDS.items())
        + ".",
    )
    p.add_argument(
        "kind",
        metavar="KIND",
        choices=list(KINDS),
        help="the service to stand in for: " + ", ".join(KINDS),
    )
    p.add_argument(
        "--port", type=int, default=0, help="the port on 127.0.0.1 (default: any free port)"
    )
    p.add_argument(
        "--answer",
        default="Yes",
        metavar="TEXT",
        help="what every question is answered (default: Yes)",
    )
    p.set_defaults(run=run_fake_server)


def run_fake_server(args: argparse.Namespace) -> int:
    from sabre_desk.demo.fake_servers.serve import start

    if not 0 <= args.port <= 65535:
        raise CliError(f"--port: {args.port} is not a port (0 to 65535)")
    try:
        running = start(args.kind, args.port, args.answer)
    except OSError as exc:
        raise CliError(
            f"--port {args.port}: cannot serve there ({exc.strerror or exc})", EXIT_PROBLEMS
        ) from exc
    settings = " ".join(f"{name}={running.url}" for name in running.variables)
    print(f"fake {args.kind} server at {running.url} (answers are made up); set {settings}")
    print("any API key will do; Ctrl+C (or `kill %1` when started with &) stops it", flush=True)
    try:
        threading.Event().wait()  # until Ctrl+C or SIGTERM (main turns both into an interrupt)
    except KeyboardInterrupt:
        print(f"fake {args.kind} server stopped", flush=True)
    finally:
        running.close()
    return EXIT_OK
