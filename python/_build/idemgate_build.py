"""A PEP 517 build backend in the standard library only, so `pip install ./python` works offline.

setuptools' backend needs `wheel` (setuptools < 70) and, under pip's build isolation, a download of
setuptools itself: neither is there on a machine without PyPI. This one writes the wheel (PEP 427)
from the package's files and pyproject.toml's [project] table, and nothing else.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from typing import Any, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "idemgate"


def _project() -> dict[str, Any]:
    """The [project] table's plain `key = "value"` lines (tomllib is 3.11+; this runs on 3.10)."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as file:
        text = file.read()
    table = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    assert table, "pyproject.toml has no [project] table"
    return dict(re.findall(r'^([a-z-]+)\s*=\s*"([^"]*)"\s*$', table.group(1), re.M))


def _dist_info() -> str:
    project = _project()
    return f"{project['name']}-{project['version']}.dist-info"


def _metadata() -> str:
    project = _project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project.get('requires-python', '>=3.10')}",
        "Classifier: Programming Language :: Python :: 3",
        "Classifier: Typing :: Typed",
    ]
    readme = os.path.join(ROOT, "README.md")
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as file:
            return "\n".join(lines) + "\n\n" + file.read()
    return "\n".join(lines) + "\n"


WHEEL = "Wheel-Version: 1.0\nGenerator: idemgate_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _package_files() -> list[tuple[str, bytes]]:
    files = []
    for name in sorted(os.listdir(os.path.join(ROOT, PACKAGE))):
        if name.endswith(".py") or name == "py.typed":
            with open(os.path.join(ROOT, PACKAGE, name), "rb") as file:
                files.append((f"{PACKAGE}/{name}", file.read()))
    return files


def _write_wheel(directory: str, files: list[tuple[str, bytes]]) -> str:
    project = _project()
    dist_info = _dist_info()
    files = files + [(f"{dist_info}/METADATA", _metadata().encode()), (f"{dist_info}/WHEEL", WHEEL.encode()), (f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode())]
    record = []
    for path, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    name = f"{project['name']}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files:
            wheel.writestr(zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
        wheel.writestr(zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(2026, 1, 1, 0, 0, 0)), "\n".join(record) + "\n")
    return name


# -- PEP 517 / PEP 660 hooks -------------------------------------------------------------------
def get_requires_for_build_wheel(config_settings: Optional[dict[str, Any]] = None) -> list[str]:
    return []


get_requires_for_build_sdist = get_requires_for_build_wheel
get_requires_for_build_editable = get_requires_for_build_wheel


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[dict[str, Any]] = None) -> str:
    dist_info = _dist_info()
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    for name, text in (("METADATA", _metadata()), ("WHEEL", WHEEL)):
        with open(os.path.join(metadata_directory, dist_info, name), "w", encoding="utf-8") as file:
            file.write(text)
    return dist_info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory: str, config_settings: Optional[dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory: str, config_settings: Optional[dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    """`pip install -e ./python`: a .pth file that puts this folder on sys.path."""
    return _write_wheel(wheel_directory, [(f"_{PACKAGE}_editable.pth", (ROOT + "\n").encode())])


def build_sdist(sdist_directory: str, config_settings: Optional[dict[str, Any]] = None) -> str:
    project = _project()
    base = f"{project['name']}-{project['version']}"
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as sdist:
        for path in ["pyproject.toml", "README.md", f"_build/{os.path.basename(__file__)}"] + [p for p, _ in _package_files()]:
            if os.path.exists(os.path.join(ROOT, path)):
                sdist.add(os.path.join(ROOT, path), arcname=f"{base}/{path}")
        info = f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n".encode()
        entry = tarfile.TarInfo(f"{base}/PKG-INFO")
        entry.size = len(info)
        sdist.addfile(entry, io.BytesIO(info))
    return name
