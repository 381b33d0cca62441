#!/usr/bin/env python3
"""Times Jinja2 rendering bench/data/react_prompt.j2, the template engine_bench renders, for the ratio.
Prints one line: jinja2_us_per_render=<float> bytes=<int>."""
import json
import pathlib
import sys
import timeit

import jinja2

data = pathlib.Path(__file__).parent / "data"
template = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string((data / "react_prompt.j2").read_text())
context = json.loads((data / "react_context.json").read_text())
out = template.render(context)
runs = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
best = min(timeit.repeat(lambda: template.render(context), number=runs, repeat=7)) / runs
print(f"jinja2_us_per_render={best * 1e6:.2f} bytes={len(out.encode())} version={jinja2.__version__}")
