"""Package discovery (metadata lives in pyproject.toml).

The repository keeps ``wrappers/``, ``tasks/`` and ``training/`` at the top level, but the
installed distribution ships them as ``vibelife_env.wrappers``, ``vibelife_env.tasks`` and
``vibelife_env.training`` so that no generic top-level name lands in site-packages.
Services are found automatically: adding one needs no change here.
"""

from setuptools import find_packages, setup

MAPPED = {"wrappers": "vibelife_env.wrappers", "training": "vibelife_env.training", "tasks": "vibelife_env.tasks"}

packages = find_packages(include=["vibelife_env", "vibelife_env.*"])
package_dir = {"vibelife_env": "vibelife_env"}
for folder, name in MAPPED.items():
    packages.append(name)
    package_dir[name] = folder
    for sub in find_packages(where=folder):
        packages.append(f"{name}.{sub}")
        package_dir[f"{name}.{sub}"] = f"{folder}/{sub.replace('.', '/')}"

setup(
    packages=packages,
    package_dir=package_dir,
    package_data={"": ["*.sql", "py.typed"], "vibelife_env.tasks": ["**/*"]},
    include_package_data=False,
)
