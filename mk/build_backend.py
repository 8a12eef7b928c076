"""The build backend of `pip install -e .` (make setup): setuptools' own, without its
"Editable installation ... be careful with folders in your working directory with
the same name as your package" notice box.

That notice is for projects whose import names may be shadowed by a folder of the
same name in the current directory.  Here the packages are `mancala` (mapped to
firmware/mancala, and no mancala/ folder at the top) and `host_tools` (the
top-level folder *is* the package), so it never applies; printed at every set-up it
only teaches a newcomer to ignore warnings.  Every other message of setuptools is
kept.
"""

import warnings

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 - the rest of the backend as is

_NOTICE = r"\s*(Editable installation\.|Please be careful with folders in your working)"


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_NOTICE)
        return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
