"""``python -m envs.report.schema``: print the JSON Schema of ``summary.json``.

Every run also writes it next to its summary, as ``summary.schema.json``.
"""

from __future__ import annotations

import json
import sys

from envs.report.summary import summary_schema


def main(argv: list[str] | None = None) -> int:
    import argparse

    argparse.ArgumentParser(prog="python -m envs.report.schema", description=__doc__.splitlines()[0].split(": ", 1)[1].replace("``", "")).parse_args(argv)
    json.dump(summary_schema(), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
