"""Package discovery (metadata lives in pyproject.toml).

The repository keeps ``wrappers/``, ``training/`` and ``tasks/`` at the top level (the
project's layout), and ``vibelife_env/wrappers``, ``vibelife_env/training`` and
``vibelife_env/tasks`` are relative symlinks to them. So each has one import name,
``vibelife_env.<folder>``, whose file path matches it: editors, mypy and the editable
install all see an ordinary subpackage, and no generic top-level name lands in
site-packages (the wheel holds real copies). Importing a folder by its bare top-level
name raises an ImportError that says which name to use.

Services are found automatically: adding one needs no change here.
"""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["vibelife_env", "vibelife_env.*"]),
    package_data={"": ["*.sql", "py.typed"], "vibelife_env.tasks": ["**/*"]},
    include_package_data=False,
)
