"""A stage's plain metadata as Dagster metadata values, under the keys Dagster's UI knows.

Dagster shows `dagster/row_count` as the asset's row count (and plots it over runs) and
`dagster/column_schema` as its column table; both come from here so every asset spells them the
same way. Column schemas are derived from `ltm.schema`, the lake's one contract, never restated.
"""

from collections.abc import Collection
from typing import Any

import pyarrow as pa
from dagster import MaterializeResult, MetadataValue, TableColumn, TableColumnConstraints, TableSchema

from ltm.schema import lake_schema
from ltm.vectors import vector_schema

ROW_COUNT = "dagster/row_count"
COLUMN_SCHEMA = "dagster/column_schema"


def metadata_values(meta: dict[str, Any], markdown: Collection[str] = ()) -> dict[str, Any]:
    """Dicts and lists as JSON, floats as floats, the keys in `markdown` as Markdown; the rest as they are."""
    out: dict[str, Any] = {}
    for key, value in meta.items():
        if key in markdown:
            out[key] = MetadataValue.md(value)
        elif isinstance(value, (dict, list)):
            out[key] = MetadataValue.json(value)
        elif isinstance(value, float):
            out[key] = MetadataValue.float(value)
        else:
            out[key] = value
    return out


def row_count(n: int) -> dict[str, Any]:
    """`{"dagster/row_count": n}`: the rows the asset's table holds for this partition after the run."""
    return {ROW_COUNT: MetadataValue.int(int(n))}


def materialized(result: Any, markdown: dict[str, str] | None = None, rows: int | None = None) -> MaterializeResult:
    """A stage result's `metadata()` and its `summary()` line (key `summary`), plus Markdown pages by key.

    `rows` becomes `dagster/row_count` (omit it for an asset that is not a table).
    """
    meta = {**result.metadata(), **(markdown or {}), "summary": result.summary()}
    out = metadata_values(meta, markdown or {})
    if rows is not None:
        out.update(row_count(rows))
    return MaterializeResult(metadata=out)


def _schema(schema: pa.Schema, types: dict[str, str] | None = None) -> TableSchema:
    return TableSchema(columns=[
        TableColumn(f.name, (types or {}).get(f.name, str(f.type)), constraints=TableColumnConstraints(nullable=f.nullable))
        for f in schema
    ])


def lake_table(table: str) -> dict[str, Any]:
    """Definition metadata for an asset whose main output is the lake table `table` (a node label,
    rel name, side table or `embeddings`): its column schema and the table's name."""
    return {COLUMN_SCHEMA: _schema(lake_schema(table)), "ltm/lake_table": table}


def lance_table() -> dict[str, Any]:
    """Definition metadata for the LanceDB `entries` table (the vector's length is the model's dimension)."""
    schema = _schema(vector_schema(1), {"vector": "fixed_size_list<float>[model dimension]"})
    return {COLUMN_SCHEMA: schema, "ltm/lance_table": "entries"}
