"""The `repos` dynamic partitions: one key per registered repository."""

from dagster import DynamicPartitionsDefinition

repos_partitions = DynamicPartitionsDefinition(name="repos")
OWNERS = ["team:hybrid-ltm"]
