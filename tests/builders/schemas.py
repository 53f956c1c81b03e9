"""Validating records against the project's JSON Schemas (``benchmark.schema_files``), with
the references between schema files resolved among themselves."""

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from benchmark.schema_files import schema_files, schema_load


def schema_validator(name: str) -> Draft202012Validator:
    schemas = {known: schema_load(name=known) for known in schema_files()}
    registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in schemas.values()
    )
    return Draft202012Validator(
        schemas[name], registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER
    )
