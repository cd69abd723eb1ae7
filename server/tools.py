"""The MCP tools over one warm `MemoryService`: typed inputs, structured outputs, descriptions
written for a model choosing among them.

A bad argument or state raises the library's `LtmError`, whose message says what is wrong and how
to fix it; it reaches the client as a tool error (`isError`) carrying that message.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, ConfigDict, Field

from ltm.errors import LtmError
from server import models
from server.calls import MAX_DEPTH
from server.service import MemoryService

INSTRUCTIONS = """\
A long-term memory of git repositories: their code as a graph (functions, classes, modules, files,
calls, imports), their history (commits, what each modified, renames, bugs and their fixes) and
memories that agents stored. Start with `query` to find things by meaning or name; use `callers`,
`callees`, `dependents` and `impact` before changing code, `detect_changes` on a diff before committing
it; `history` for why code is the way it is; `remember` to store a decision or finding, and `memories`
to read what is stored about an entity; `conversations` for the agent conversations that edited a
file and what the user asked; `repositories` for what is held and how fresh it is."""

T = TypeVar("T")

Strategy = Literal["parallel", "vector_first", "graph_first", "vector_only", "graph_only"]
Repo = Annotated[str | None, Field(description="Only this repository (its key, see `repositories`).")]
Depth = Annotated[int, Field(ge=1, le=MAX_DEPTH, description=f"1 = direct only; up to {MAX_DEPTH} for transitive.")]
Confidence = Annotated[float, Field(ge=0, le=1, description="Skip calls resolved with less confidence (0 to 1).")]
FunctionName = Annotated[str, Field(description="Function name, qualified name (`Class.method`) or fn: id.")]
Namespace = Annotated[str | None, Field(description=(
    "Act in this namespace: its memories and the shared ones (default: shared only); another namespace's "
    "memories are never seen."))]
AgentId = Annotated[str | None, Field(description="Act as this agent: its private memories are seen (and stored) too.")]
EntityRef = Annotated[str, Field(description=(
    "A function or class (qualified name like `Session.send`, plain name, or an fn:/cls: id from `query`) "
    "or a file (path relative to the repository root, or a file: id)."))]


class QueryFilters(BaseModel):
    """Restrict `query` results; every field is optional."""

    model_config = ConfigDict(extra="forbid")

    repo: str | None = Field(None, description="Repository key.")
    category: str | None = Field(None, description="function, module, commit_log, guideline, architecture or memory.")
    path_prefix: str | None = Field(None, description="File path prefix relative to the repository root, e.g. `src/auth/`.")
    since: datetime | None = Field(None, description="Only entries dated at or after this ISO time (commits, memories).")
    until: datetime | None = Field(None, description="Only entries dated at or before this ISO time.")


class MemoryEntry(BaseModel):
    content: str = Field(description="The memory's text.")
    metadata: dict[str, Any] | None = Field(None, description="As for `remember`'s metadata.")


def answer(fn: Callable[[], T]) -> T:
    """Run one service call; the library's user errors become tool errors with their message."""
    try:
        return fn()
    except LtmError as e:
        raise ToolError(str(e)) from e


def build_server(service: MemoryService) -> MCPServer:
    """The MCP server with every tool bound to `service`."""
    try:
        ours = version("hybrid-ltm")
    except PackageNotFoundError:  # run from a source tree that was never installed
        ours = ""
    mcp = MCPServer("hybrid-ltm", version=ours, instructions=INSTRUCTIONS, log_level="WARNING")

    @mcp.tool(name="query")
    def query(
        text: Annotated[str, Field(description="The question or the words to look for (natural language, a name, an error).")],
        strategy: Annotated[Strategy, Field(description=(
            "parallel (default, both halves fused), vector_first (meaning, then graph context), graph_first "
            "(names and structure first), vector_only, graph_only."))] = "parallel",
        top_k: Annotated[int, Field(ge=1, le=1000, description="How many results, 1 to 1000.")] = 5,
        depth: Annotated[int, Field(ge=1, le=2, description="Graph neighbours shown per hit: 1 or 2 hops.")] = 1,
        filters: Annotated[QueryFilters | None, Field(description="Optional restrictions.")] = None,
        namespace: Namespace = None,
        agent_id: AgentId = None,
    ) -> models.QueryResult:
        """Search the memory by meaning and by structure: code (functions, classes, modules), commit
        messages, bugs, docs and stored memories. Returns the best hits with their ids, file and lines,
        the reasons they matched and their graph neighbours. Use it first to find an entity's exact name
        or id for the other tools."""
        f = filters.model_dump(exclude_none=True) if filters else None
        hits = answer(lambda: service.query(text, strategy, top_k, depth, f, namespace, agent_id))
        return models.QueryResult(hits=[models.Hit(**h) for h in hits])

    def _calls(name: str, direction: str, repo: str | None, depth: int, min_confidence: float) -> models.CallsResult:
        return models.CallsResult(**answer(lambda: service.calls(name, direction, repo, depth, min_confidence)))

    @mcp.tool(name="callers")
    def callers(name: FunctionName, repo: Repo = None, depth: Depth = 1, min_confidence: Confidence = 0.0) -> models.CallsResult:
        """Who calls a function: the functions with a CALLS edge into it, and with depth > 1 their callers
        in turn, each row with its depth. Use before changing a function's behaviour or signature."""
        return _calls(name, "callers", repo, depth, min_confidence)

    @mcp.tool(name="callees")
    def callees(name: FunctionName, repo: Repo = None, depth: Depth = 1, min_confidence: Confidence = 0.0) -> models.CallsResult:
        """What a function calls (resolved calls only), and with depth > 1 what those call, each row with
        its depth. Use to understand what a function relies on."""
        return _calls(name, "callees", repo, depth, min_confidence)

    @mcp.tool(name="dependents")
    def dependents(
        module: Annotated[str, Field(description="Dotted module name (`pkg.auth`) or an external package (`requests`).")],
        repo: Repo = None,
    ) -> models.DependentsResult:
        """Which modules import a module or an external package (DEPENDS_ON edges). Use before changing a
        module's interface or replacing a dependency."""
        return models.DependentsResult(rows=answer(lambda: service.dependents(module, repo)))

    @mcp.tool(name="history")
    def history(entity: EntityRef, repo: Repo = None) -> models.HistoryResult:
        """The history of a function, class or file: the commits that modified it (sha, author, date, first
        line of the message, lines added and deleted; `merge` marks a merge, whose lines its branch's commits
        listed beside it changed), its former names (renames), and the bugs that affected it with the
        commits that fixed them and those blamed for introducing them."""
        return models.HistoryResult(**answer(lambda: service.history(entity, repo)))

    @mcp.tool(name="impact")
    def impact(entity: EntityRef, repo: Repo = None, depth: Depth = 2) -> models.ImpactResult:
        """What may break if an entity changes: its transitive callers to `depth`, the test functions among
        them, the functions, classes and files that changed together with it in history, the bugs that
        affected it and its defect signals (fix_count, churn, bugs_introduced)."""
        return models.ImpactResult(**answer(lambda: service.impact(entity, repo, depth)))

    @mcp.tool(name="detect_changes")
    def detect_changes(
        diff: Annotated[str | None, Field(description=(
            "A unified diff (`git diff` output) against the commit the graph was built from. Leave it out to "
            "use the repository's working tree against its HEAD."))] = None,
        repo: Annotated[str | None, Field(description="The repository key; needed when the home holds several.")] = None,
    ) -> models.ChangesResult:
        """Review a change before committing it: the functions and classes a diff (or the uncommitted work in
        the repository) touches, each with its direct callers, what usually changes with it, its defect
        signals and a risk level (high when it has a bug history), riskiest first."""
        return models.ChangesResult(**answer(lambda: service.detect_changes(diff, repo)))

    @mcp.tool(name="remember")
    def remember(
        content: Annotated[str | None, Field(description="The memory's text: a decision, a finding, a convention.")] = None,
        metadata: Annotated[dict[str, Any] | None, Field(description=(
            "Optional: file_path, function_name (to link it to code), category, memory_type (episodic, semantic, "
            "procedural, sensory, ...), tags (list of strings), importance (number), project_id, id, created_at, "
            "graph_links ([{type, target}]), private (true: only agent_id sees it), expires_at, "
            "derives_from ([ids of the memories it was extracted from])."))] = None,
        entries: Annotated[list[MemoryEntry] | None, Field(description=(
            "Several memories at once (instead of content/metadata): stored as one write."))] = None,
        namespace: Annotated[str | None, Field(description=(
            "Store in this namespace (default: shared, seen by every query)."))] = None,
        agent_id: Annotated[str | None, Field(description="The agent storing the memories.")] = None,
    ) -> models.RememberResult:
        """Store one memory (content, metadata) or several (entries) in the long-term memory. It is
        searchable by `query` at once and linked to the code it names (file_path, function_name);
        returns each memory's ids and the entities it was linked to."""
        if entries and content is not None:
            raise ToolError("pass either content (one memory) or entries (several), not both")
        batch = [(e.content, e.metadata) for e in entries] if entries else [(content, metadata)] if content is not None else []
        return models.RememberResult(stored=answer(lambda: service.remember(batch, namespace, agent_id)))

    @mcp.tool(name="memories")
    def memories(entity: EntityRef, repo: Repo = None, namespace: Namespace = None,
                 agent_id: AgentId = None) -> models.MemoriesResult:
        """What is stored about a function, class or file: the memories linked to it, most relevant first."""
        return models.MemoriesResult(**answer(lambda: service.memories(entity, repo, namespace, agent_id)))

    @mcp.tool(name="conversations")
    def conversations(
        file: Annotated[str, Field(description="A file: its path or its tail (`auth.py`, `app/auth.py`).")],
        action: Annotated[Literal["edit", "read", "any"], Field(description="Which tool uses count.")] = "edit",
        namespace: Namespace = None,
        agent_id: AgentId = None,
    ) -> models.ConversationsResult:
        """Which imported agent conversations edited (or read) a file, and what the user asked: each use with
        its tool, the file at HEAD, the commits whose content it equals, and the user's turns before it."""
        return models.ConversationsResult(conversations=answer(lambda: service.conversations(file, action, namespace, agent_id)))

    @mcp.tool(name="repositories")
    def repositories() -> models.RepositoriesResult:
        """The repositories this memory holds and how fresh each is: the commit the graph was built from,
        the last commit mined and when, and the graph build being served."""
        return models.RepositoriesResult(**answer(service.repositories))

    return mcp
