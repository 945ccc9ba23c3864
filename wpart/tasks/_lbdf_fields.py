"""Every field of the vt / LBAF ``LBDatafile`` format and what wpart's reader does with it.

:data:`FIELDS` is the list the README's "LBDatafile" table is made from (a test checks that
they agree): each field is *read* (it sets a part of the :class:`~wpart.tasks.Problem`),
*checked* (validated, then kept), *ignored* (with the reason; kept verbatim when wpart writes
the problem back) or *rejected* (:class:`~wpart.tasks.LBDatafileError` naming the file and the
field). :data:`KEYS` lists the keys the format defines at each level of a file (the levels of
vt's own JSON schema for the format); with ``strict=True`` (the default) any other key is
rejected, since wpart cannot tell whether it changes the meaning of the data; inside the
free-form objects ``user_defined`` and ``attributes`` every key is allowed.
"""

from __future__ import annotations

__all__ = ["FIELDS", "KEYS", "check_keys", "readme_table"]

_ENTITY = frozenset({"type", "id", "seq_id", "home", "migratable", "collection_id", "index",
                     "objgroup_id"})

#: Keys the format defines, per level of a rank file.
KEYS: dict[str, frozenset] = {
    "": frozenset({"type", "metadata", "phases"}),
    "metadata": frozenset({"type", "rank", "rank_alpha", "shared_node", "phases", "attributes"}),
    "metadata.phases": frozenset({"count", "skipped", "identical_to_previous"}),
    "phase": frozenset({"id", "tasks", "communications", "user_defined", "lb_iterations"}),
    "task": frozenset({"entity", "node", "resource", "time", "subphases", "user_defined",
                       "attributes"}),
    "entity": _ENTITY,
    "communication": frozenset({"type", "from", "to", "bytes", "messages"}),
    "endpoint": _ENTITY,
}

#: (field, action, what wpart does with it): the README's table.
FIELDS: list[tuple[str, str, str]] = [
    ("type, metadata.type", "checked",
     '"LBDatafile" when present (another value is not this format: rejected)'),
    ("metadata.rank", "read",
     "the file's rank (else the `<rank>` of `<stem>.<rank>.json`); a file name with another "
     "rank is rejected"),
    ("metadata.rank_alpha", "read", "this rank's compute coefficient α (heterogeneous ranks)"),
    ("metadata.phases.skipped", "read",
     "asking for a phase listed there is rejected (vt did not record it)"),
    ("metadata.phases.identical_to_previous", "read",
     "a phase listed there (not written out by vt) is read from the last phase the file holds "
     "before it"),
    ("metadata.phases.count", "ignored",
     "a count (`metadata.phases` is not written back: a written file holds one phase)"),
    ("metadata.shared_node", "ignored",
     "which ranks share a node; per-node memory is `Problem(rank_node=, node_mem=)`"),
    ("metadata.attributes, tasks[].attributes", "ignored", "free-form"),
    ("phases[].id", "read", "the phase (`phase=`; default: the first listed); an id listed "
     "twice in one file is rejected"),
    ("tasks[].entity.id / seq_id", "read",
     "the task id (`Problem.task_ids`), unique over all ranks"),
    ("tasks[].entity.migratable", "read",
     "`false` pins the task to the rank of its file (`Problem.migratable`): no method moves "
     "it; not a boolean: rejected"),
    ("tasks[].entity.home", "checked",
     "a rank in [0, m), else rejected; a pinned task must be on its home rank"),
    ("tasks[].entity.type, collection_id, index, objgroup_id", "ignored", "identification only"),
    ("tasks[].node", "checked", "the rank the task ran on: must be the file's rank"),
    ("tasks[].time", "read", "the task's load (≥ 0)"),
    ("tasks[].resource", "ignored", '"cpu", the only resource vt records'),
    ("tasks[].subphases", "ignored",
     "per-subphase times; the phase is balanced on `time`, as LBAF does"),
    ("tasks[].user_defined.shared_id, shared_bytes, home_rank", "read",
     "the shared memory block the task uses, its size and home rank (`home_rank` in [0, m); "
     "absent: the rank of the first file listing the block); two sizes, or two `home_rank` "
     "values, of one block are rejected"),
    ("tasks[].user_defined.task_footprint_bytes, task_working_bytes", "read",
     "the task's baseline and working memory"),
    ("tasks[].user_defined.rank_working_bytes", "read",
     "the rank's baseline memory (the largest value on the rank)"),
    ("tasks[].user_defined.task_serialized_bytes", "ignored",
     "the size of a migration message; not a term of the work model"),
    ("tasks[].user_defined (other keys)", "ignored", "application data, free-form"),
    ("communications[].type", "read",
     '"SendRecv" is a task-to-task edge; other types (broadcasts, node endpoints) are not '
     "edges between two tasks: skipped, as LBAF does"),
    ("communications[].from, to", "read",
     "the two tasks; an endpoint that is no task of the phase is rejected unless it is marked "
     '`"migratable": false` (an object vt pins, e.g. an object group: skipped)'),
    ("communications[].bytes", "read", "the edge's volume"),
    ("communications[].messages", "ignored", "a count of messages; the model uses bytes"),
    ("phases[].user_defined", "ignored", "free-form"),
    ("phases[].lb_iterations", "ignored",
     "placements vt's own balancer tried in the phase, not the measured input"),
    ("any other key", "rejected",
     "with `strict=True` (default): wpart cannot tell whether it changes the meaning; "
     "`strict=False` ignores and keeps it"),
    ("rank files of a stem", "rejected",
     "a gap (rank files 0, 2, 3 without 1) or two files of one rank"),
    ("<stem>.<rank>.vom", "read",
     "vt's older text format (`phase,object id,time` per line, e.g. LBAF's "
     "`vt_example_lb_data`): read as the LBDatafile it stands for (every object migratable, "
     "no communications); written back as LBDatafile JSON"),
]


def check_keys(d: dict, level: str, where: str, path: str, strict: bool) -> None:
    """Reject a key of `d` that the format does not define at `level` (with `strict`)."""
    if not strict:
        return
    known = KEYS[level]
    for k in d:
        if k not in known:
            from ._io import LBDatafileError

            field = f"{where}.{k}" if where else str(k)
            raise LBDatafileError(
                f"{path}: {field}: a field the LBDatafile format does not define here (known: "
                f"{', '.join(sorted(known))}); wpart cannot tell whether it changes the meaning "
                "of the data (read with strict=False to ignore it)")


def readme_table() -> str:
    """The Markdown table of :data:`FIELDS`."""
    rows = ["| field | wpart | what for |", "|---|---|---|"]
    rows += [f"| `{f}` | {a} | {w} |" if not f.startswith(("any", "rank files")) else
             f"| {f} | {a} | {w} |" for f, a, w in FIELDS]
    return "\n".join(rows)
