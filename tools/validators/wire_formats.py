"""The wire formats of generated/avro/ and generated/proto/, through the official Python tools.

Run by tests/wire_formats.rs (with a corpus the Rust side wrote: one JSON object per line, each a payload
as the `energy-api` crate decodes it, with the Avro bytes the crate wrote) and by `cargo xtask test`:

  wire_formats.py avro CORPUS            fastavro writes each payload against its .avsc: the bytes must
                                         be the crate's; fastavro reads the crate's bytes back equal
  wire_formats.py proto CORPUS PROTO OUT protoc (grpcio-tools) compiles every .proto into OUT; each
                                         payload goes JSON -> Protobuf binary -> JSON through the
                                         `protobuf` runtime's json_format and must come back equal
  wire_formats.py avro-compat OLD NEW    the Apache `avro` package's reader/writer compatibility of each
                                         .avsc of the folder OLD with its namesake in NEW, both ways: one
                                         JSON object per line
  wire_formats.py dataclasses AVRO OUT CORPUS
                                         dataclasses-avroschema makes a Python dataclass module of every
                                         .avsc; each payload is loaded into its dataclass and serialised:
                                         the bytes must be the crate's

Each prints one line of counts and exits 1 with the first differences when anything differs.
"""

import importlib
import io
import json
import os
import sys


def json_text(value):
    """The compact JSON text the crate writes (serde_json): members in name order, UTF-8 as is."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def read_corpus(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


class Names:
    """The named types of one .avsc, for references by full name."""

    def __init__(self):
        self.by_name = {}

    def full(self, name, namespace):
        return name if "." in name else f"{namespace}.{name}" if namespace else name


def avro_datum(value, schema, names, namespace=None, is_json=False):
    """A payload (JSON) as the datum its .avsc describes: free-form objects and an incomplete record's
    unlisted members as JSON texts (see docs/documents.md)."""
    if isinstance(schema, str):
        if schema in ("string",) and is_json:
            return json_text(value)
        if schema in names.by_name or names.full(schema, namespace) in names.by_name:
            target = names.by_name.get(schema) or names.by_name[names.full(schema, namespace)]
            return avro_datum(value, target, names, namespace, is_json)
        if schema == "double" and isinstance(value, int):
            return float(value)
        return value
    if isinstance(schema, list):
        if value is None:
            return None
        branch = next(s for s in schema if s != "null")
        return avro_datum(value, branch, names, namespace, is_json)
    kind = schema["type"]
    if kind == "record":
        ns = schema.get("namespace", namespace)
        names.by_name[names.full(schema["name"], ns)] = schema
        out = {}
        listed = {f["name"] for f in schema["fields"]}
        for field in schema["fields"]:
            marked = "energy.json" in field
            if field["name"] == "additional_fields" and marked:
                extra = {k: v for k, v in value.items() if k not in listed}
                out["additional_fields"] = json_text(extra)
            elif field["name"] in value:
                out[field["name"]] = avro_datum(value[field["name"]], field["type"], names, ns, marked)
            else:
                out[field["name"]] = None
        return out
    if kind == "array":
        return [avro_datum(v, schema["items"], names, namespace, is_json) for v in value]
    if kind == "map":
        return {k: avro_datum(v, schema["values"], names, namespace, is_json) for k, v in value.items()}
    return avro_datum(value, kind, names, namespace, is_json)


def load_avsc(root, cache, path):
    if path not in cache:
        import fastavro

        with open(os.path.join(root, path), encoding="utf-8") as f:
            raw = json.load(f)
        cache[path] = (raw, fastavro.parse_schema(raw))
    return cache[path]


def avro(corpus_path):
    import fastavro

    corpus = read_corpus(corpus_path)
    root = os.environ.get("GENERATED_DIR", "generated")
    cache = {}
    failures = []
    for case in corpus:
        raw, parsed = load_avsc(root, cache, case["avsc"])
        datum = avro_datum(case["json"], raw, Names())
        buf = io.BytesIO()
        fastavro.schemaless_writer(buf, parsed, datum)
        ours = bytes.fromhex(case["avro"])
        if buf.getvalue() != ours:
            failures.append(f"{case['label']}: fastavro writes {buf.getvalue().hex()}, the crate {ours.hex()}")
            continue
        back = fastavro.schemaless_reader(io.BytesIO(ours), parsed)
        if back != datum:
            failures.append(f"{case['label']}: fastavro reads the crate's bytes as {back!r}, not {datum!r}")
    report("avro (fastavro)", len(corpus), failures)


def compile_protos(proto_dir, out_dir):
    """protoc (grpcio-tools) on every .proto, Python modules and type stubs into out_dir."""
    import grpc_tools
    from grpc_tools import protoc

    files = sorted(
        os.path.relpath(os.path.join(d, f), proto_dir)
        for d, _, fs in os.walk(proto_dir)
        for f in fs
        if f.endswith(".proto")
    )
    well_known = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    os.makedirs(out_dir, exist_ok=True)
    args = ["protoc", f"-I{proto_dir}", f"-I{well_known}", f"--python_out={out_dir}", f"--pyi_out={out_dir}"]
    if protoc.main(args + files) != 0:
        print("protoc failed", file=sys.stderr)
        sys.exit(1)
    return files


def normalise(message_json, descriptor):
    """json_format's JSON as the payload's: 64-bit integers (strings in the proto3 JSON mapping) as
    numbers, an incomplete payload's `additional_fields` spread back into the object."""
    from google.protobuf.descriptor import FieldDescriptor as F

    out = {}
    for name, value in message_json.items():
        field = descriptor.fields_by_name.get(name)
        if field is None:
            out[name] = value
            continue
        if field.type in (F.TYPE_INT64, F.TYPE_SINT64, F.TYPE_SFIXED64, F.TYPE_UINT64, F.TYPE_FIXED64):
            value = [int(v) for v in value] if isinstance(value, list) else int(value)
        elif field.type == F.TYPE_MESSAGE and field.message_type.full_name.startswith("energy."):
            sub = field.message_type
            if field.message_type.GetOptions().map_entry:
                vf = sub.fields_by_name["value"]
                if vf.type == F.TYPE_MESSAGE and vf.message_type.full_name.startswith("energy."):
                    value = {k: normalise(v, vf.message_type) for k, v in value.items()}
                elif vf.type in (F.TYPE_INT64,):
                    value = {k: int(v) for k, v in value.items()}
            elif isinstance(value, list):
                value = [normalise(v, sub) for v in value]
            else:
                value = normalise(value, sub)
        if name == "additional_fields" and isinstance(value, dict):
            out.update(value)
            continue
        out[name] = value
    return out


def gather_unlisted(payload, descriptor):
    """An incomplete payload's members its message does not list, moved into `additional_fields`."""
    if "additional_fields" not in descriptor.fields_by_name:
        return payload
    listed = {f.name for f in descriptor.fields}
    out = {k: v for k, v in payload.items() if k in listed}
    out["additional_fields"] = {k: v for k, v in payload.items() if k not in listed}
    return out


def prune(back, sent):
    """proto3 cannot tell an absent list or map from an empty one: an optional one the payload leaves out
    comes back empty, at any depth; those are dropped again."""
    if isinstance(back, dict) and isinstance(sent, dict):
        return {
            k: prune(v, sent[k]) if k in sent else v
            for k, v in back.items()
            if k in sent or v not in ([], {})
        }
    if isinstance(back, list) and isinstance(sent, list) and len(back) == len(sent):
        return [prune(b, s) for b, s in zip(back, sent)]
    return back


def equal_json(a, b):
    """Equal as JSON values (1 and 1.0 are one number)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True) or a == b


def proto(corpus_path, proto_dir, out_dir):
    from google.protobuf import json_format

    compile_protos(proto_dir, out_dir)
    sys.path.insert(0, out_dir)
    corpus = read_corpus(corpus_path)
    failures = []
    for case in corpus:
        module = importlib.import_module(case["proto_module"])
        cls = getattr(module, case["proto_message"])
        payload = gather_unlisted(case["json"], cls.DESCRIPTOR)
        message = json_format.ParseDict(payload, cls())
        binary = message.SerializeToString(deterministic=True)
        read = cls.FromString(binary)
        back = json_format.MessageToDict(
            read,
            preserving_proto_field_name=True,
            always_print_fields_with_no_presence=True,
        )
        back = normalise(back, cls.DESCRIPTOR)
        back = prune(back, case["json"])
        if not equal_json(back, case["json"]):
            failures.append(f"{case['label']}: {json.dumps(case['json'])} came back as {json.dumps(back)}")
    report("protobuf (protoc + json_format)", len(corpus), failures)


def dataclasses(avro_dir, out_dir, corpus_path):
    from dataclasses_avroschema import ModelGenerator
    from dataclasses_avroschema.model_generator.generator import BaseClassEnum

    generator = ModelGenerator()
    model_type = BaseClassEnum.AVRO_MODEL.value
    os.makedirs(out_dir, exist_ok=True)
    modules = {}
    for name in sorted(os.listdir(avro_dir)):
        if not name.endswith(".avsc"):
            continue
        with open(os.path.join(avro_dir, name), encoding="utf-8") as f:
            schema = json.load(f)
        module = "m_" + name[: -len(".avsc")].replace(".", "_").replace("-", "_")
        with open(os.path.join(out_dir, module + ".py"), "w", encoding="utf-8") as f:
            f.write(generator.render(schema=schema, model_type=model_type))
        modules[name] = (module, schema["name"])
    sys.path.insert(0, out_dir)
    corpus = read_corpus(corpus_path)
    failures = []
    for case in corpus:
        module, record = modules[os.path.basename(case["avsc"])]
        imported = importlib.import_module(module)
        # The generator names classes in PascalCase: `V1_0_0` becomes `V100`.
        cls = getattr(imported, record, None) or getattr(imported, record.replace("_", ""))
        with open(os.path.join(avro_dir, os.path.basename(case["avsc"])), encoding="utf-8") as f:
            raw = json.load(f)
        datum = avro_datum(case["json"], raw, Names())
        instance = cls.parse_obj(datum)
        ours = bytes.fromhex(case["avro"])
        if instance.serialize() != ours:
            failures.append(f"{case['label']}: the dataclass writes {instance.serialize().hex()}, the crate {ours.hex()}")
        elif cls.deserialize(ours) != instance:
            failures.append(f"{case['label']}: the dataclass reads the crate's bytes as another value")
    report(f"dataclasses-avroschema ({len(modules)} modules)", len(corpus), failures)


def avro_compat(old_dir, new_dir):
    import avro.schema
    from avro.compatibility import ReaderWriterCompatibilityChecker, SchemaCompatibilityType

    def load(path):
        with open(path, encoding="utf-8") as f:
            return avro.schema.parse(f.read())

    checker = ReaderWriterCompatibilityChecker()

    def compatible(reader, writer):
        result = checker.get_compatibility(reader, writer)
        ok = result.compatibility == SchemaCompatibilityType.compatible
        return ok, "" if ok else "; ".join(sorted(str(m) for m in result.messages))

    old = {f for f in os.listdir(old_dir) if f.endswith(".avsc")}
    new = {f for f in os.listdir(new_dir) if f.endswith(".avsc")}
    for name in sorted(old | new):
        subject = name[: -len(".avsc")]
        if name not in new:
            print(json.dumps({"subject": subject, "only": "old"}))
            continue
        if name not in old:
            print(json.dumps({"subject": subject, "only": "new"}))
            continue
        before, after = load(os.path.join(old_dir, name)), load(os.path.join(new_dir, name))
        backward, why_backward = compatible(after, before)
        forward, why_forward = compatible(before, after)
        print(json.dumps({
            "subject": subject,
            "backward": backward,
            "forward": forward,
            "why": why_backward or why_forward,
        }))


def report(what, count, failures):
    print(f"{what}: {count} payloads, {len(failures)} differ")
    for failure in failures[:20]:
        print(f"  {failure}")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"avro": avro, "proto": proto, "dataclasses": dataclasses, "avro-compat": avro_compat}[command](*args)
