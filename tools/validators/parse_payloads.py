"""Parses JSON values with the pydantic models datamodel-code-generator made (run by `cargo xtask test`).

usage: python parse_payloads.py <package dir> <cases.json>

<package dir> holds the generated modules (a package, or a folder with one `models.py`). <cases.json> lists
{"name", "file" or "module", "class" (optional), "value"}: each value is parsed with `model_validate` by
the class (by default the one class its module defines), and whatever a model keeps beyond its fields
(`extra="allow"`, the schemas' `additionalProperties: true`) must still be there after parsing, at every
depth. Also fails when a class is defined by two modules (a folder of schemas must give each type once) or
a module meant for one payload defines several. Prints one JSON line of counts; exits 1 on any failure.
"""

import importlib
import inspect
import json
import pathlib
import re
import sys

from pydantic import BaseModel, RootModel


def module_of_file(package, file):
    """The module datamodel-code-generator writes for a schema file: `events/a.b-c.json` -> `events.a_b_c`."""
    path = pathlib.PurePosixPath(file)
    stem = re.sub(r"[^0-9A-Za-z_]", "_", path.stem)
    return ".".join([package, *path.parent.parts, stem])


def classes_of(module):
    return {
        name: cls
        for name, cls in inspect.getmembers(module, inspect.isclass)
        if cls.__module__ == module.__name__ and issubclass(cls, BaseModel)
    }


def lost_members(instance, raw, at):
    """Members of `raw` that a model meant to keep (extra="allow") does not have after parsing."""
    if isinstance(instance, RootModel):
        return lost_members(instance.root, raw, at)
    if isinstance(instance, list) and isinstance(raw, list):
        return [m for i, (a, b) in enumerate(zip(instance, raw)) for m in lost_members(a, b, f"{at}[{i}]")]
    if not (isinstance(instance, BaseModel) and isinstance(raw, dict)):
        return []
    lost = []
    kept = instance.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if type(instance).model_config.get("extra") == "allow":
        lost += [f"{at}.{key}" for key in raw if key not in kept]
    for name, field in type(instance).model_fields.items():
        key = field.alias or name
        if key in raw:
            lost += lost_members(getattr(instance, name), raw[key], f"{at}.{key}")
    return lost


def main():
    package_dir, cases_file = map(pathlib.Path, sys.argv[1:3])
    sys.path.insert(0, str(package_dir.parent))
    package = package_dir.name
    failures = []
    defined = {}
    modules = 0
    for path in sorted(package_dir.rglob("*.py")):
        relative = path.relative_to(package_dir.parent).with_suffix("")
        name = ".".join(part for part in relative.parts if part != "__init__")
        module = importlib.import_module(name)
        modules += 1
        for class_name in classes_of(module):
            if class_name in defined:
                failures.append(f"class {class_name} is defined by {defined[class_name]} and {name}")
            defined[class_name] = name
    cases = json.loads(cases_file.read_text())
    parsed = 0
    for case in cases:
        module_name = case.get("module") or module_of_file(package, case["file"])
        try:
            module = importlib.import_module(module_name)
        except ImportError as e:
            failures.append(f"{case['name']}: no module {module_name}: {e}")
            continue
        classes = classes_of(module)
        if "class" in case:
            cls = classes.get(case["class"])
        elif len(classes) == 1:
            cls = next(iter(classes.values()))
        else:
            failures.append(f"{case['name']}: {module_name} defines {sorted(classes)}, not one class")
            continue
        if cls is None:
            failures.append(f"{case['name']}: {module_name} has no class {case.get('class')}")
            continue
        try:
            instance = cls.model_validate(case["value"])
        except Exception as e:  # pydantic.ValidationError, with every error and its place
            failures.append(f"{case['name']} does not parse as {cls.__name__}: {e}")
            continue
        lost = lost_members(instance, case["value"], case["name"])
        if lost:
            failures.append(f"{case['name']}: {cls.__name__} drops {', '.join(lost[:5])}")
            continue
        parsed += 1
    for failure in failures:
        print(failure, file=sys.stderr)
    print(json.dumps({"modules": modules, "classes": len(defined), "parsed": parsed}))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
