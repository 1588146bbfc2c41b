"""The optional C core of the solver; everything else is in pyproject.toml.

``optional=True``: where no C compiler exists the build of the extension is
skipped and c4 uses the solver's pure-Python search (same answers, slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "c4cli.engine._native",
            sources=["c4cli/engine/_native.c"],
            extra_compile_args=["-O3"],
            optional=True,
        )
    ]
)
