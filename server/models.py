"""The structured outputs of the MCP tools: each tool returns one of these, and its JSON schema is
the tool's `outputSchema`, so a client knows the fields before it calls."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Hit(BaseModel):
    """One retrieval result (`HybridLTM.query`); fields a strategy adds are kept as they are."""

    model_config = ConfigDict(extra="allow")

    graph_entity_id: str | None = Field(None, description="The graph node (fn:, cls:, mod:, file:, commit:, bug:, mem:).")
    vector_id: str | None = None
    label: str | None = Field(None, description="Node label: Function, Class, Module, Commit, Bug, Memory, ...")
    name: str | None = None
    category: str | None = None
    repo: str | None = None
    file_path: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    created_at: datetime | None = None
    content: str | None = Field(None, description="The text that was embedded (code summary, commit message, memory).")
    score: float = Field(description="Final score, higher is better.")
    scores: dict[str, float] = Field(default_factory=dict, description="fused, centrality, defects; for a memory also "
                                     "recency (1.0 the newest of the memory candidates).")
    why: list[str] = Field(default_factory=list, description="Why it matched.")
    neighbours: list[dict[str, Any]] = Field(default_factory=list, description="Graph neighbours (id, label, name, relation, direction, hop).")


class QueryResult(BaseModel):
    hits: list[Hit]


class CallRow(BaseModel):
    """One CALLS edge reached from the asked function; `depth` 1 is a direct caller or callee."""

    depth: int = Field(description="Hops from the asked function (1 = direct).")
    function: str = Field(description="Qualified name of the function at the near end of the edge.")
    function_file: str | None = None
    function_id: str
    other: str = Field(description="Qualified name of the caller (callers) or callee (callees).")
    other_file: str | None = None
    other_line: int | None = None
    other_id: str
    confidence: float = Field(description="Resolution confidence of the call, 0 to 1.")
    other_pagerank: float | None = None


class CallsResult(BaseModel):
    targets: list[str] = Field(description="Ids of the functions the name matched.")
    direction: str = Field(description="callers or callees")
    rows: list[CallRow]
    truncated: bool = Field(False, description="True when the answer was cut at 500 edges: ask a smaller depth or a repo.")


class DependentRow(BaseModel):
    module: str
    external: bool | None = None
    dependent: str
    dependent_path: str | None = None
    dependent_pagerank: float | None = None


class DependentsResult(BaseModel):
    rows: list[DependentRow]


class Entity(BaseModel):
    id: str
    label: str
    name: str | None = None
    file_path: str | None = None
    repo: str | None = None


class CommitRow(BaseModel):
    """A commit that modified the entity (or one of its former names, `entity_id`)."""

    sha: str
    author: str | None = None
    author_email: str | None = None
    date: datetime | None = None
    message: str = Field(description="First line of the commit message.")
    lines_added: int | None = None
    lines_deleted: int | None = None
    change_kind: str | None = Field(None, description="added, modified, renamed, deleted.")
    change_type: str | None = Field(None, description="feature, bugfix, refactor, ... (from the message).")
    merge: bool = Field(False, description="A merge: its lines are those its branch's commits (listed too) changed.")
    entity_id: str


class BugRow(BaseModel):
    id: str
    ref: str | None = None
    title: str | None = None
    state: str | None = None
    evidence: str | None = None
    confidence: float | None = None
    fixed_by: list[str] = Field(default_factory=list, description="Shas of the commits that fix it.")
    introduced_by: list[str] = Field(default_factory=list, description="Shas SZZ blames for introducing it.")


class HistoryResult(BaseModel):
    entity: Entity
    commits: list[CommitRow] = Field(description="Newest first.")
    renamed_from: list[Entity] = Field(description="Former names, nearest first.")
    bugs: list[BugRow]


class MemoryRow(BaseModel):
    id: str
    content: str | None = None
    category: str | None = None
    memory_type: str | None = None
    created_at: datetime | None = None
    relation: str | None = None
    relevance_score: float | None = None


class MemoriesResult(BaseModel):
    entity: Entity
    memories: list[MemoryRow]


class Link(BaseModel):
    relation: str
    target: str


class Remembered(BaseModel):
    graph_entity_id: str
    vector_id: str
    links: list[Link] = Field(description="The code entities the memory was linked to.")
    link_errors: list[str] = Field(default_factory=list)
    in_graph: bool = Field(description="False when the home has no graph build yet (the next build adds it).")


class RememberResult(BaseModel):
    stored: list[Remembered]


class Repository(BaseModel):
    key: str
    path: str
    url: str | None = None
    branch: str | None = None
    head_sha: str | None = Field(None, description="The commit the graph was built from.")
    commit_count: int | None = None
    mined_tip: str | None = Field(None, description="The last commit the history stage mined.")
    mined_at: datetime | None = None
    history_complete: bool | None = None


class RepositoriesResult(BaseModel):
    graph_build: str | None = Field(None, description="The graph build being served.")
    repositories: list[Repository]


class CoChange(BaseModel):
    id: str
    label: str
    commits: int = Field(description="Commits that modified both.")


class ImpactResult(BaseModel):
    entity: Entity
    callers: list[CallRow] = Field(description="Transitive callers, to the asked depth.")
    callers_truncated: bool = Field(False, description="True when the callers were cut at 500 edges.")
    tests: list[str] = Field(description="Ids of the test functions among those callers.")
    co_changed: list[CoChange] = Field(description="Functions, classes and files most often changed in the same commits.")
    bugs: list[BugRow]
    fix_count: int | None = None
    churn: int | None = None
    bugs_introduced: int | None = None


class ChangedFile(BaseModel):
    old_path: str | None = Field(None, description="None for a new file.")
    new_path: str | None = Field(None, description="None for a deleted file.")
    lines_added: int
    lines_deleted: int


class ChangedEntity(BaseModel):
    """A function or class whose lines the change touches, and what it may break."""

    id: str
    label: str
    name: str | None = None
    file_path: str
    line_start: int | None = None
    line_end: int | None = None
    callers: list[str] = Field(description="Ids of its direct callers.")
    co_changed: list[CoChange] = Field(description="What usually changes with it (check these too).")
    fix_count: int | None = None
    churn: int | None = None
    bugs_introduced: int | None = None
    risk: str = Field(description="high (bug history), medium (wide fan-in) or low.")
    reasons: list[str] = Field(default_factory=list)


class ChangesResult(BaseModel):
    repo: str
    graph_head: str | None = Field(None, description="The commit the graph was built from; hunks are matched against it.")
    files: list[ChangedFile]
    entities: list[ChangedEntity] = Field(description="Riskiest first.")


class ConversationUse(BaseModel):
    turn: int = Field(description="The agent turn's index in its conversation (0 = first message).")
    memory_id: str = Field(description="The agent turn's Memory id.")
    tool: str
    action: str = Field(description="edit or read.")
    path: str = Field(description="The path as the tool call named it.")
    file: str | None = Field(description="The File at HEAD it resolves to (file: id), if any.")
    blob_id: str | None = Field(description="git's blob id of the content the export carried, if any.")
    commits: list[str] = Field(description="Shas of the commits whose version of the file had that content.")
    asked: str | None = Field(description="The last user turn before this use: what the user asked.")


class ConversationTurn(BaseModel):
    turn: int
    memory_id: str
    content: str


class Conversation(BaseModel):
    conversation_id: str
    uses: list[ConversationUse]
    user_turns: list[ConversationTurn] = Field(description="The user's turns before the last use, in order.")


class ConversationsResult(BaseModel):
    conversations: list[Conversation]
